import { afterEach, describe, expect, it } from 'vitest';
import { newAttachmentId } from '../../../electron/core/chat/attachments-send';
import { Conversations } from '../../../electron/core/chat/conversations';
import { contextUse } from '../../../electron/core/chat/models';
import { TemporaryConversations } from '../../../electron/core/chat/temporary';
import { runTurn, type PendingAttachment } from '../../../electron/core/chat/turn';
import type { ChatEvent } from '../../../electron/shared/chat';
import { attachmentBlocks, reply, text } from '../../fake-anthropic/server';
import { pdf, png, utf8 } from '../../fixtures/attachments/make';
import { attach, chatRig, errorOf, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function send(r: ChatRig, conversationId: string, userText: string, attachments: PendingAttachment[], conversations?: TemporaryConversations): Promise<{ events: ChatEvent[]; saved: boolean }> {
  const events: ChatEvent[] = [];
  const saved = await runTurn({ vault: r.t.vault, conversationId, userText, env: r.env, onEvent: (e) => events.push(e), attachments, ...(conversations ? { conversations } : {}) });
  return { events, saved };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

describe('attachments sent to Claude', () => {
  it('go as an image block, a base64 PDF document and a text document, before the words, and again on the next turn', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const image = png(3, 2);
    const doc = pdf(1);
    const notes = utf8('line one\nligne deux — ç\n');
    rig.fake.script(reply(text('I see a blue picture.')), reply(text('Still here.')));
    const { saved } = await send(rig, c.id, 'What is in these?', [attach('pic.png', image), attach('paper.pdf', doc), attach('notes.txt', notes)]);
    expect(saved).toBe(true);

    const first = rig.fake.requests[0]!;
    expect(attachmentBlocks(first)).toEqual([
      { message: 0, type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(image) } },
      { message: 0, type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b64(doc) }, title: 'paper.pdf' },
      { message: 0, type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'line one\nligne deux — ç\n' }, title: 'notes.txt' },
    ]);
    expect((first.body.messages[0]!.content as Array<{ type: string }>).at(-1)).toEqual({ type: 'text', text: 'What is in these?' });

    await rig.turn(c.id, 'And now?');
    const second = rig.fake.requests[1]!;
    // The API keeps nothing between requests: the earlier attachments go again, in their place in the history.
    expect(attachmentBlocks(second).map((b) => [b.message, b.type, b.source.type])).toEqual([
      [0, 'image', 'base64'],
      [0, 'document', 'base64'],
      [0, 'document', 'text'],
    ]);
    expect(second.body.messages.at(-1)).toEqual({ role: 'user', content: 'And now?' });
  });

  it('a message of attachments alone goes without an empty text block, and the conversation is named after the file', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('A small chart.')), reply(text('Yes.')));
    const { saved } = await send(rig, c.id, '', [attach('chart.png', png(3, 2))]);
    expect(saved).toBe(true);
    // The API refuses an empty text block: the message is the image only.
    expect((rig.fake.requests[0]!.body.messages[0]!.content as Array<{ type: string }>).map((b) => b.type)).toEqual(['image']);
    const stored = (await rig.conversations.get(c.id))!;
    expect(stored.title).toBe('chart.png');
    expect(stored.transcript[0]).toMatchObject({ role: 'user', text: '', attachments: [{ name: 'chart.png' }] });
    await rig.turn(c.id, 'Is it blue?');
    expect((rig.fake.requests[1]!.body.messages[0]!.content as Array<{ type: string }>).map((b) => b.type)).toEqual(['image']);
  });

  it('are stored encrypted apart from the conversation, survive a reopen, and the log keeps only references', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const image = png(5, 5, [200, 10, 10]);
    rig.fake.script(reply(text('Red.')));
    await send(rig, c.id, 'Colour?', [attach('../../red\u202E.png', image)]);

    const vault = await rig.t.reopen();
    const again = new Conversations(vault);
    const stored = (await again.get(c.id))!;
    const entry = stored.transcript[0]!;
    expect(entry).toMatchObject({ role: 'user', text: 'Colour?', attachments: [{ name: 'red.png', mediaType: 'image/png', bytes: image.length }] });
    const ref = entry.role === 'user' ? entry.attachments![0]! : undefined;
    expect(Buffer.from((await again.getAttachment(c.id, ref!.id))!)).toEqual(Buffer.from(image));
    expect(JSON.stringify(stored.messages)).not.toContain(b64(image));
    expect(JSON.stringify(stored.messages)).toContain(`mnemo-attachment:${ref!.id}`);
    expect(vault.internal.keys(`attachments/${c.id}/`)).toEqual([`attachments/${c.id}/${ref!.id}`]);
  });

  it('are counted for the context meter as they are sent, never as the stored references', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const image = png(3, 3);
    rig.fake.script(reply(text('ok')));
    await send(rig, c.id, 'count me', [attach('c.png', image)]);
    const use = await contextUse(rig.t.vault, (await rig.conversations.get(c.id))!, { env: rig.env });
    expect(use.source).toBe('count');
    const counted = JSON.stringify(rig.fake.extra.countRequests.at(-1));
    expect(counted).toContain(b64(image));
    expect(counted).not.toContain('mnemo-attachment:');
  });

  it('are deleted with their conversation, leftovers of a cut-short deletion included', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const other = await rig.conversations.create();
    rig.fake.script(reply(text('ok')));
    await send(rig, c.id, 'keep this', [attach('a.txt', utf8('hello'))]);
    // Bytes written before their message, then a crash: nothing refers to them.
    await rig.conversations.putAttachment(other.id, newAttachmentId(), utf8('orphan'));
    await rig.t.vault.internal.put(`attachments/${'f'.repeat(16)}/${'e'.repeat(16)}`, utf8('of a conversation whose deletion was cut short'));
    expect(rig.t.vault.internal.keys('attachments/')).toHaveLength(3);
    await rig.conversations.delete(c.id);
    expect(rig.t.vault.internal.keys(`attachments/${c.id}/`)).toEqual([]);
    expect(rig.t.vault.internal.keys('attachments/').map((k) => k.split('/')[1])).toEqual([other.id]);
    await rig.conversations.delete(other.id);
    expect(rig.t.vault.internal.keys('attachments/')).toEqual([]);
  });

  it('leave a message without attachments stored as before (no attachments field)', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('hi')));
    await rig.turn(c.id, 'plain');
    expect((await rig.conversations.get(c.id))!.transcript[0]).toEqual({ role: 'user', text: 'plain', at: expect.any(Number) });
    expect(rig.fake.requests[0]!.body.messages[0]).toEqual({ role: 'user', content: 'plain' });
  });

  it('in a temporary chat stay in memory only, and still go with each turn', async () => {
    rig = await chatRig();
    const temporary = new TemporaryConversations();
    const c = temporary.create();
    rig.fake.script(reply(text('seen')), reply(text('seen again')));
    await send(rig, c.id, 'look', [attach('t.png', png(2, 2))], temporary);
    await send(rig, c.id, 'again', [], temporary);
    expect(rig.t.vault.internal.keys('attachments/')).toEqual([]);
    expect(attachmentBlocks(rig.fake.requests[1]!)).toHaveLength(1);
    const id = (await temporary.require(c.id)).transcript[0] as { attachments?: Array<{ id: string }> };
    const held = (await temporary.getAttachment(c.id, id.attachments![0]!.id))!;
    temporary.clear();
    expect(held.every((x) => x === 0)).toBe(true);
    expect(await temporary.getAttachment(c.id, id.attachments![0]!.id)).toBeUndefined();
  });
});

describe('request limits are checked before anything is sent', () => {
  it('refuses a 101st image in one request, naming it, with no request made and nothing stored', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const images = Array.from({ length: 101 }, (_, i) => attach(`img${i}.png`, png(1, 1)));
    const { events, saved } = await send(rig, c.id, 'all of these', images);
    expect(saved).toBe(false);
    expect(errorOf(events)).toMatchObject({ code: 'too_large' });
    expect(errorOf(events)!.message).toMatch(/would send 101 images to Claude .* at most 100 per request\. Remove “img100\.png”.* Your message was not sent; it is still in the box\./);
    expect(rig.fake.requests).toHaveLength(0);
    expect(rig.t.vault.internal.keys('attachments/')).toEqual([]);
    expect((await rig.conversations.get(c.id))!.transcript).toEqual([]);
  });

  it('refuses an image over 2000 px when a request holds more than 20 images', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const images = [...Array.from({ length: 20 }, (_, i) => attach(`s${i}.png`, png(1, 1))), attach('wide.png', png(2001, 1))];
    const { events } = await send(rig, c.id, 'many', images);
    expect(errorOf(events)!.message).toMatch(/“wide\.png” is 2001×1 pixels; with more than 20 images in a request the API takes at most 2000×2000/);
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('refuses a request over 32 MB, naming this message’s largest attachment, before sending', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    const { events, saved } = await send(rig, c.id, 'two big PDFs', [attach('small.pdf', pdf(1, 11_000_000)), attach('large.pdf', pdf(1, 13_000_000))]);
    expect(saved).toBe(false);
    expect(errorOf(events)!.message).toMatch(/would make a 3\d\.\d MB request; the API takes at most 32\.0 MB\. Remove “large\.pdf” \(13\.0 MB\)/);
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('counts the conversation’s earlier PDFs’ pages toward the 100-page limit', async () => {
    rig = await chatRig();
    const c = await rig.conversations.create();
    rig.fake.script(reply(text('read it')));
    await send(rig, c.id, 'first', [attach('a.pdf', pdf(60))]);
    const { events } = await send(rig, c.id, 'second', [attach('b.pdf', pdf(50))]);
    expect(errorOf(events)!.message).toMatch(/have 110 pages together; the API reads at most 100 per request\. Remove “b\.pdf”/);
    expect(rig.fake.requests).toHaveLength(1);
  });
});
