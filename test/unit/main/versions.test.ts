/**
 * Conversation versions through the IPC handler table, as the window (or a
 * hostile page) calls them: regenerate, edit (chatSend with `replace`) and
 * switch (chatShowVersion), with races, refusals and a lock in between.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Handlers } from '../../../electron/main/handlers/types';
import { Conversations } from '../../../electron/core/chat/conversations';
import { markedDeleted } from '../../../electron/core/chat/conversation-log';
import { VaultError } from '../../../electron/core/vault/types';
import type { Conversation } from '../../../electron/shared/ipc-values';
import { reply, text, type RecordedRequest } from '../../fake-anthropic/server';
import { closeApps, handlerApp, PASS } from './handler-app';

/** A stored version's key, `conversation-log/<id>/b<16 hex>`: not format 2's records of a device whose id starts with b (`conversation-log/<id>/b…/<n>`). */
const isTailKey = (k: string): boolean => /\/b[0-9a-f]{16}$/.test(k);

afterEach(closeApps);

type Rig = Awaited<ReturnType<typeof handlerApp>> & { events: Array<{ event: string; payload: unknown }> };

async function rig(): Promise<Rig> {
  const app = await handlerApp('mnemo-versions-');
  return { ...app, events: app.emitted };
}

type TurnEvent = { turnId: string; event: { type: string; code?: string; message?: string } };
const turnEvents = (r: Rig, turnId: string) => r.events.flatMap((e) => (e.event === 'chatEvent' && (e.payload as TurnEvent).turnId === turnId ? [(e.payload as TurnEvent).event] : []));

/** Resolves once the turn's `done` has reached the window. */
function turnDone(r: Rig, turnId: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (turnEvents(r, turnId).some((e) => e.type === 'done') ? resolve() : setImmediate(check));
    check();
  });
}

async function send(r: Rig, id: string, words: string, answer: string, more: Record<string, unknown> = {}): Promise<string> {
  r.fake.script(reply(text(answer)));
  const { turnId } = (await r.call('chatSend', { id, text: words, ...more })) as { turnId: string };
  await turnDone(r, turnId);
  return turnId;
}

const get = async (r: Rig, id: string) => (await r.call('chatGet', { id })) as Conversation;
const words = (c: Conversation) => c.transcript.map((e) => e.text);
const sentWords = (req: RecordedRequest | undefined) => (req?.body.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : (m.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('')));

/** A conversation with two exchanges and a regenerated second reply (version 2 of 2 shown). */
async function withVersions(r: Rig, project?: string): Promise<string> {
  const { id } = (await r.call('chatCreate', project ? { project } : {})) as { id: string };
  await send(r, id, 'q0', 'a0');
  await send(r, id, 'q1', 'a1');
  r.fake.script(reply(text('a1 again')));
  const { turnId } = (await r.call('chatRegenerate', { id, entry: 2 })) as { turnId: string };
  await turnDone(r, turnId);
  return id;
}

/** What a call must leave as it was: the conversation as the window sees it (its date included), and its stored versions. */
async function snapshot(r: Rig, id: string): Promise<string> {
  return JSON.stringify({ c: await get(r, id), versions: r.session.unlocked().internal.keys(`conversation-log/${id}/b`).filter(isTailKey).sort() });
}

describe('versions over IPC', () => {
  it('regenerate, edit and switch: the window sees each version, and the next turn is sent the one shown', async () => {
    const r = await rig();
    const id = await withVersions(r);
    expect(words(await get(r, id))).toEqual(['q0', 'a0', 'q1', 'a1 again']);
    expect((await get(r, id)).versions).toEqual([{ entry: 2, shown: 1, count: 2, by: 'regenerate', groups: [0, 0] }]);
    r.fake.script(reply(text('b0')));
    const { turnId } = (await r.call('chatSend', { id, text: 'q0 edited', replace: 0 })) as { turnId: string };
    await turnDone(r, turnId);
    expect(sentWords(r.fake.requests.at(-1))).toEqual(['q0 edited']);
    expect((await get(r, id)).versions).toEqual([{ entry: 0, shown: 1, count: 2, by: 'edit', groups: [0, 1] }]);
    expect(await r.call('chatShowVersion', { id, entry: 0, version: 0 })).toBeNull();
    expect(words(await get(r, id))).toEqual(['q0', 'a0', 'q1', 'a1 again']);
    await r.call('chatShowVersion', { id, entry: 2, version: 0 });
    await send(r, id, 'q2', 'a2');
    expect(sentWords(r.fake.requests.at(-1))).toEqual(['q0', 'a0', 'q1', 'a1', 'q2']);
  });

  it('a regeneration refused before sending (no API key) brings the earlier version back and leaves no empty one', async () => {
    const r = await rig();
    const id = await withVersions(r);
    await r.call('chatShowVersion', { id, entry: 2, version: 0 });
    const before = await snapshot(r, id);
    delete r.env.ANTHROPIC_API_KEY;
    const { turnId } = (await r.call('chatRegenerate', { id, entry: 0 })) as { turnId: string };
    await turnDone(r, turnId);
    expect(turnEvents(r, turnId).find((e) => e.type === 'error')?.code).toBe('no_key');
    expect(await snapshot(r, id)).toBe(before);
    const { turnId: edit } = (await r.call('chatSend', { id, text: 'edited', replace: 2 })) as { turnId: string };
    await turnDone(r, edit);
    expect(await snapshot(r, id)).toBe(before);
  });

  it('hostile arguments are refused with a clear error and change nothing', async () => {
    const r = await rig();
    const id = await withVersions(r);
    const before = await snapshot(r, id);
    const asks: Array<[keyof Handlers, Record<string, unknown>, string]> = [
      ['chatRegenerate', { id, entry: 99 }, 'INVALID'],
      ['chatRegenerate', { id, entry: 1 }, 'INVALID'],
      ['chatRegenerate', { id, entry: -1 }, 'BAD_INPUT'],
      ['chatRegenerate', { id, entry: 0.5 }, 'BAD_INPUT'],
      ['chatSend', { id, text: 'x', replace: 3 }, 'INVALID'],
      ['chatSend', { id, text: 'x', replace: 4 }, 'INVALID'],
      ['chatSend', { id, text: ' ', replace: 0 }, 'INVALID'],
      ['chatShowVersion', { id, entry: 2, version: 2 }, 'INVALID'],
      ['chatShowVersion', { id, entry: 2, version: -1 }, 'BAD_INPUT'],
      ['chatShowVersion', { id, entry: 0, version: 0 }, 'INVALID'],
      ['chatShowVersion', { id, entry: 3, version: 0 }, 'INVALID'],
      ['chatShowVersion', { id: 'ffffffffffffffff', entry: 0, version: 0 }, 'NOT_FOUND'],
      ['chatRegenerate', { id: 'ffffffffffffffff', entry: 0 }, 'NOT_FOUND'],
      ['chatShowVersion', { id: '../conversations', entry: 0, version: 0 }, 'BAD_INPUT'],
    ];
    for (const [name, args, code] of asks) expect(`${name} ${JSON.stringify(args)}: ${await r.refused(name, args)}`).toBe(`${name} ${JSON.stringify(args)}: ${code}`);
    expect(await snapshot(r, id)).toBe(before);
    expect(r.session.turns.size).toBe(0);
  });

  it("a deleted project's conversation and a closed temporary chat are out of reach for versions", async () => {
    const r = await rig();
    const work = (await r.call('projectsCreate', { name: 'Work' })) as { id: string };
    const id = await withVersions(r, work.id);
    const before = await snapshot(r, id);
    await r.call('projectsDelete', { id: work.id });
    expect(await r.refused('chatRegenerate', { id, entry: 0 })).toBe('NOT_FOUND');
    expect(await r.refused('chatSend', { id, text: 'x', replace: 0 })).toBe('NOT_FOUND');
    expect(await r.refused('chatShowVersion', { id, entry: 2, version: 0 })).toBe('NOT_FOUND');
    await r.call('projectsRestore', { id: work.id });
    expect(await snapshot(r, id)).toBe(before);

    const temp = (await r.call('chatCreate', { temporary: true })) as { id: string };
    await send(r, temp.id, 'secret', 'kept in memory');
    r.fake.script(reply(text('again')));
    await turnDone(r, ((await r.call('chatRegenerate', { id: temp.id, entry: 0 })) as { turnId: string }).turnId);
    expect((await get(r, temp.id)).versions).toEqual([{ entry: 0, shown: 1, count: 2, by: 'regenerate', groups: [0, 0] }]);
    await r.call('chatShowVersion', { id: temp.id, entry: 0, version: 0 });
    expect(words(await get(r, temp.id))).toEqual(['secret', 'kept in memory']);
    await r.call('chatDelete', { id: temp.id });
    expect(await r.refused('chatShowVersion', { id: temp.id, entry: 0, version: 1 })).toBe('NOT_FOUND');
    expect(await r.refused('chatRegenerate', { id: temp.id, entry: 0 })).toBe('NOT_FOUND');
  });

  it('versions are the same after a lock and unlock through the handlers', async () => {
    const r = await rig();
    const id = await withVersions(r);
    await r.call('chatShowVersion', { id, entry: 2, version: 0 });
    const before = await get(r, id);
    await r.call('vaultLock');
    await r.call('vaultUnlock', { passphrase: PASS });
    expect(await get(r, id)).toEqual(before);
    await r.call('chatShowVersion', { id, entry: 2, version: 1 });
    expect(words(await get(r, id))).toEqual(['q0', 'a0', 'q1', 'a1 again']);
  });

  for (const back of ['before the turn ends', 'only after it']) {
    it(`a regenerated reply the vault cannot take (a full disk, space back ${back}) leaves every version, none cut`, async () => {
      const r = await rig();
      const id = await withVersions(r);
      await r.call('chatShowVersion', { id, entry: 2, version: 0 });
      const before = await snapshot(r, id);
      const internal = r.session.unlocked().internal as { putJSON: (k: string, v: unknown) => Promise<void> };
      const put = internal.putJSON;
      let full = false;
      internal.putJSON = async (k, v) => {
        if (full && k.startsWith('conversation')) throw new VaultError('DISK_FULL', 'The disk is full, so nothing was saved. Free some space and try again.');
        return put(k, v);
      };
      r.fake.script(reply(text('never stored')));
      const { turnId } = (await r.call('chatRegenerate', { id, entry: 2 })) as { turnId: string };
      // Full from the turn's save on: its version was set aside before it.
      full = true;
      const seen = r.events.length;
      if (back === 'before the turn ends') await new Promise<void>((resolve) => void (function check() { if (r.events.slice(seen).some((e) => e.event === 'chatEvent' && (e.payload as TurnEvent).event.type === 'error')) { full = false; resolve(); } else setImmediate(check); })());
      await turnDone(r, turnId);
      expect(turnEvents(r, turnId).find((e) => e.type === 'error')?.message).toMatch(/disk is full/);
      full = false;
      expect(await snapshot(r, id)).toBe(before);
    });
  }

  it('a new version a crash left unsent is taken back when the conversation is opened, so no version is hidden', async () => {
    const r = await rig();
    const id = await withVersions(r);
    const before = await get(r, id);
    // As a power cut after the version was set aside and before the turn saved leaves it.
    await new Conversations(r.session.unlocked()).branch(id, 0, 'edit');
    const opened = await get(r, id);
    expect(words(opened)).toEqual(words(before));
    expect(opened.versions).toEqual(before.versions);
  });
});

describe('versions racing each other over IPC', () => {
  it('two regenerations at once: exactly one runs, the other is refused, and the fork has one new version', async () => {
    const r = await rig();
    const id = await withVersions(r);
    r.fake.script(reply(text('third')), reply(text('fourth')));
    const results = await Promise.allSettled([r.call('chatRegenerate', { id, entry: 2 }), r.call('chatRegenerate', { id, entry: 0 })]);
    const ok = results.flatMap((x) => (x.status === 'fulfilled' ? [(x.value as { turnId: string }).turnId] : []));
    expect(ok.length).toBe(1);
    expect(results.find((x) => x.status === 'rejected')).toMatchObject({ reason: { message: expect.stringMatching(/still answering/) } });
    await turnDone(r, ok[0]!);
    const c = await get(r, id);
    expect(c.versions?.map((v) => v.count).reduce((a, b) => a + b, 0)).toBe(results[0]!.status === 'fulfilled' ? 3 : 2);
    expect(r.fake.requests.length).toBe(4);
  });

  it('a switch or an edit while a regeneration runs is refused; a rename and a pin meanwhile both stay', async () => {
    const r = await rig();
    const id = await withVersions(r);
    r.fake.script({ ...reply(text('a slow new reply')), delayMs: 20 });
    const regenerating = r.call('chatRegenerate', { id, entry: 2 });
    const side = Promise.all([r.call('chatRename', { id, title: 'Renamed meanwhile' }), r.call('chatSetFlags', { id, pinned: true })]);
    const { turnId } = (await regenerating) as { turnId: string };
    expect(await r.refused('chatShowVersion', { id, entry: 2, version: 0 })).toBe('INVALID');
    expect(await r.refused('chatSend', { id, text: 'edit', replace: 0 })).toBe('INVALID');
    expect(await r.refused('chatRegenerate', { id, entry: 0 })).toBe('INVALID');
    await side;
    await turnDone(r, turnId);
    const c = await get(r, id);
    expect(words(c)).toEqual(['q0', 'a0', 'q1', 'a slow new reply']);
    expect(c.versions).toEqual([{ entry: 2, shown: 2, count: 3, by: 'regenerate', groups: [0, 0, 0] }]);
    expect(c.title).toBe('Renamed meanwhile');
    expect(((await r.call('chatList')) as Array<{ id: string; pinned?: boolean }>).find((x) => x.id === id)?.pinned).toBe(true);
  });

  for (const when of ['as', 'once'] as const) {
    it(`a lock ${when} a regeneration sets its version aside: after unlocking, every version is there and can be shown`, async () => {
      const r = await rig();
      const id = await withVersions(r);
      r.fake.script(reply(text('third')));
      const regen = r.call('chatRegenerate', { id, entry: 2 }).then((v) => (v as { turnId: string }).turnId, (e: { code: string }) => e.code);
      // Once it holds the turn, the lock waits for the version set aside to be taken back before the keys go.
      if (when === 'once') await new Promise<void>((resolve) => void (function check() { if (r.session.turns.size > 0) resolve(); else setImmediate(check); })());
      await r.call('vaultLock');
      const outcome = await regen;
      if (outcome.length === 16) await turnDone(r, outcome);
      await r.call('vaultUnlock', { passphrase: PASS });
      const c = await get(r, id);
      const fork = c.versions?.find((v) => v.entry === 2);
      expect(fork?.count).toBeGreaterThanOrEqual(2);
      const seen: string[] = [];
      for (let v = 0; v < fork!.count; v++) {
        await r.call('chatShowVersion', { id, entry: 2, version: v });
        seen.push(words(await get(r, id)).slice(3).join(' '));
      }
      expect(seen.slice(0, 2)).toEqual(['a1', 'a1 again']);
    });
  }

  it('deleting the conversation while a regenerated reply streams leaves nothing of it, no stored version either', async () => {
    const r = await rig();
    const id = await withVersions(r);
    r.fake.script({ ...reply(text('a reply nobody will keep')), delayMs: 20 });
    const { turnId } = (await r.call('chatRegenerate', { id, entry: 0 })) as { turnId: string };
    await r.call('chatDelete', { id });
    await turnDone(r, turnId);
    expect(await r.refused('chatGet', { id })).toBe('NOT_FOUND');
    expect(r.session.unlocked().internal.keys(`conversation-log/${id}/`)).toEqual([]);
    // Format 1 removes the head; format 2 keeps it marked deleted (a tombstone, so that another computer's copy of
    // the head does not bring the conversation back on merge: docs/sync-design.md §12.4).
    const internal = r.session.unlocked().internal;
    if (internal.scheme?.() === 2) expect(await markedDeleted(r.session.unlocked(), id)).toBe(true);
    else expect(internal.keys(`conversations/${id}`)).toEqual([]);
  });

  it('a switch and a regeneration asked at once: one wins, and the conversation is whole', async () => {
    const r = await rig();
    const id = await withVersions(r);
    r.fake.script(reply(text('third')));
    const [sw, regen] = await Promise.allSettled([r.call('chatShowVersion', { id, entry: 2, version: 0 }), r.call('chatRegenerate', { id, entry: 2 })]);
    expect([sw.status, regen.status].filter((x) => x === 'fulfilled').length).toBe(1);
    if (regen.status === 'fulfilled') await turnDone(r, (regen.value as { turnId: string }).turnId);
    const c = await get(r, id);
    expect(words(c)).toEqual(sw.status === 'fulfilled' ? ['q0', 'a0', 'q1', 'a1'] : ['q0', 'a0', 'q1', 'third']);
    expect(c.versions?.[0]?.count).toBe(sw.status === 'fulfilled' ? 2 : 3);
  });
});
