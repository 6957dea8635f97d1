/**
 * A conversation with 100 images over 50 turns: each save writes its own
 * images once and a small log record (never the earlier images again), and
 * opening it again decrypts no image, the context meter's count included once
 * it has been had for that history.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { contextUse } from '../../../electron/core/chat/models';
import { runTurn } from '../../../electron/core/chat/turn';
import type { VaultApi } from '../../../electron/core/vault/types';
import { reply, text } from '../../fake-anthropic/server';
import { png } from '../../fixtures/attachments/make';
import { attach, chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** `vault` counting the bytes its internal store is given and the attachments it is asked for. */
function counting(vault: VaultApi): { vault: VaultApi; written: { bytes: number }; attachmentReads: { n: number } } {
  const written = { bytes: 0 };
  const attachmentReads = { n: 0 };
  const inner = vault.internal;
  const internal: VaultApi['internal'] = {
    get: (k) => {
      if (k.startsWith('attachments/')) attachmentReads.n++;
      return inner.get(k);
    },
    getJSON: (k) => inner.getJSON(k),
    keys: (p) => inner.keys(p),
    put: (k, v) => {
      written.bytes += v.length;
      return inner.put(k, v);
    },
    putJSON: (k, v) => {
      written.bytes += Buffer.byteLength(JSON.stringify(v));
      return inner.putJSON(k, v);
    },
    delete: (k) => inner.delete(k),
  };
  return { vault: new Proxy(vault, { get: (target, prop) => (prop === 'internal' ? internal : (Reflect.get(target, prop, target) as unknown)) }), written, attachmentReads };
}

describe('a conversation with 100 images over 50 turns', () => {
  it('writes each image once and a small record per turn, and reopening decrypts no image', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const perTurn: number[] = [];
    let imageBytes = 0;
    for (let turn = 0; turn < 50; turn++) {
      // Distinct images of about 20 kB each (the colour and padding make every one different).
      const files = [0, 1].map((k) => attach(`t${turn}-${k}.png`, png(16, 16, [turn, k, 7], 20_000)));
      const turnImages = files.reduce((n, f) => n + f.bytes, 0);
      imageBytes += turnImages;
      const probe = counting(rig.t.vault);
      rig.fake.script(reply(text(`Seen ${turn}.`)));
      await runTurn({ vault: probe.vault, conversationId: c.id, userText: `Look at these, ${turn}.`, env: rig.env, onEvent: () => undefined, attachments: files, promptCaching: false });
      perTurn.push(probe.written.bytes - turnImages);
    }
    // The log's share of a save stays small and flat (about 1 kB; a group of 32 turns' records is written whole
    // once), never the earlier turns' images again: all 50 saves wrote less than 5% on top of the images.
    const sorted = [...perTurn].sort((a, b) => a - b);
    expect(sorted[25]!).toBeLessThan(2_000);
    expect(perTurn.reduce((a, b) => a + b, 0)).toBeLessThan(imageBytes / 20);
    expect(imageBytes).toBeGreaterThan(100 * 20_000);

    const probe = counting(await rig.t.reopen());
    const conv = (await new Conversations(probe.vault).get(c.id))!;
    expect(conv.transcript).toHaveLength(100);
    expect(probe.attachmentReads.n).toBe(0);
    // The meter counts the history as sent once; opening the unchanged conversation again asks for no image.
    const first = await contextUse(probe.vault, conv, { env: rig.env });
    expect(first.source).toBe('count');
    const reads = probe.attachmentReads.n;
    const again = await contextUse(probe.vault, (await new Conversations(probe.vault).get(c.id))!, { env: rig.env });
    expect(again).toEqual(first);
    expect(probe.attachmentReads.n - reads).toBe(0);
  });
});
