/**
 * Stored versions nothing names are swept (conversations.ts sweepTails: what
 * a crash between a version's writes leaves). On a vault two computers share
 * (format 2) another computer's version may arrive before the head that names
 * it, as its other values may (`sweepable`): it must not be swept as one.
 * Two computers here are two state folders on copies of one vault folder,
 * their `devices/` folders copied across as a sync engine would (as in
 * test/unit/sync/keys2.test.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Conversations, type StoredConversation } from '../../../electron/core/chat/conversations';
import { Vault } from '../../../electron/core/vault/vault';

const PASS = 'correct horse battery staple';
const FLOOR = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-sweep2-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

const opts = (state: string) => ({ stateDir: path.join(root, state), format2: true, ackDelayMs: 0 });

async function twoComputers(): Promise<{ va: Vault; vb: Vault; sync: () => Promise<void> }> {
  const a = path.join(root, 'va');
  const b = path.join(root, 'vb');
  const made = await Vault.create(a, PASS, { kdf: FLOOR, ...opts('a') });
  await made.vault.close();
  await fs.cp(a, b, { recursive: true });
  const va = await Vault.open(a, opts('a'));
  await va.unlockWithRecoveryKey(made.recoveryKey);
  const vb = await Vault.open(b, opts('b'));
  await vb.unlockWithRecoveryKey(made.recoveryKey);
  const copy = async (from: string, to: string) => {
    for (const rel of (await fs.readdir(from, { recursive: true })) as string[]) {
      if (rel !== 'vault.json' && !rel.startsWith('devices')) continue;
      const src = path.join(from, rel);
      if (!(await fs.stat(src)).isFile()) continue;
      const bytes = await fs.readFile(src);
      const old = await fs.readFile(path.join(to, rel)).catch(() => undefined);
      const newer = rel === 'vault.json' ? old && JSON.parse(String(bytes)).version > JSON.parse(String(old)).version : !old || bytes.length > old.length;
      if (!newer) continue;
      await fs.mkdir(path.dirname(path.join(to, rel)), { recursive: true });
      await fs.writeFile(path.join(to, rel), bytes);
    }
  };
  const sync = async () => {
    await copy(path.join(root, 'va'), path.join(root, 'vb'));
    await copy(path.join(root, 'vb'), path.join(root, 'va'));
    await va.ingest();
    await vb.ingest();
  };
  return { va, vb, sync };
}

it('a version made on the other computer, synced before its head, is not swept, and shows once the head arrives', async () => {
  const { va, vb, sync } = await twoComputers();
  const c = await new Conversations(va).create();
  const answered: StoredConversation = {
    ...c,
    messages: [
      { role: 'user', content: 'q0' },
      { role: 'assistant', content: 'a0' },
    ],
    transcript: [
      { role: 'user', text: 'q0', at: 1 },
      { role: 'assistant', text: 'a0', at: 2, tools: [] },
    ],
    turnStarts: [0],
  };
  await new Conversations(va).update(c.id, () => answered);
  await sync();
  // B regenerates the reply: its first write (the version set aside) reaches A before its second (the head).
  const put = vb.internal.putJSON.bind(vb.internal);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atHead = new Promise<void>((resolve) => (reached = resolve));
  vi.spyOn(vb.internal, 'putJSON').mockImplementation(async (key, value) => {
    if (key === `conversations/${c.id}`) {
      reached();
      await held;
    }
    return put(key, value);
  });
  const branching = new Conversations(vb).branch(c.id, 0, 'regenerate');
  await atHead;
  await sync();
  // A lists its conversations meanwhile (its first list since unlocking sweeps).
  await new Conversations(va).list();
  release();
  await branching;
  vi.restoreAllMocks();
  await sync();
  // On A, the version B set aside is there to show.
  const shown = await new Conversations(va).showVersion(c.id, 0, 0);
  expect(shown.transcript.map((e) => e.text)).toEqual(['q0', 'a0']);
  await va.close();
  await vb.close();
});
