/**
 * The promise of format 2 (docs/sync-design.md §9.3), with the sync engine our users run: a vault made on computer A
 * in A's Syncthing folder reaches B through real Syncthing on loopback; B opens it with its own state folder and the
 * same passphrase; then both write at once (memories of their own, one shared memory edited on each without
 * overlapping, turns added to a shared conversation and to one of their own) while Syncthing carries the files back
 * and forth and each ingests now and then, as the app's watcher does. Once Syncthing has settled and each has ingested,
 * both hold exactly the same memories and conversations, the shared memory holds both edits, every write either side
 * was told was done is there, `verify` is clean on both, and both list the two computers. Syncthing never had to
 * make a conflict copy: no file is written by two computers.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { Conversations } from '../../electron/core/chat/conversations';
import type { StoredConversation } from '../../electron/core/chat/conversation-values';
import { createMemoryHandlers } from '../../electron/core/memory/handlers';
import { runMemoryCommand } from '../../electron/core/memory/run';
import { Vault } from '../../electron/core/vault/vault';
import { Syncthing, tree, type Instance } from './syncthing';
import { said, turn } from '../unit/sync/turns';

const PASS = 'correct horse battery staple';
/** Real Argon2id at the cheapest cost a vault accepts. */
const FLOOR = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
/** Memories each computer makes of its own while the other writes. */
const OWN = 20;
/**
 * Each computer checkpoints (and compacts) every 8 records, far more often than the app (every 4096), so Syncthing
 * carries new checkpoints, packs and the removal of emptied segments while both write. `MNEMO_SYNCTHING_CHURN=3`:
 * every 3 records, and a turn in the shared conversation with every memory. Then a computer writes and removes files
 * faster than the other can pull them, and Syncthing brings the removal of old files before the new checkpoint (its
 * pull of the checkpoint fails: "no such file"). That showed two faults, both fixed: saves refused because a value
 * already shown could not be read until that checkpoint came (blobs2.ts `fromPacks`), and a save reported as failed
 * after it was stored (conversations.ts `index`).
 */
const CHURN = Number(process.env.MNEMO_SYNCTHING_CHURN) || undefined;
const CHECKPOINT_EVERY = CHURN ?? 8;
const SHARED_EVERY = CHURN ? 1 : 4;
const SHARED = '/memories/shared.md';
const SHARED_TEXT = ['# Shared', 'first: as made on A', 'middle line one', 'middle line two', 'last: as made on A', ''].join('\n');

/** A computer: its Syncthing, its vault in the synced folder, its state folder outside it, and what it was told was done. */
interface Computer {
  node: Instance;
  v: Vault;
  /** Memory path → the text of the last write the memory tool answered as done (the shared memory apart). */
  memories: Map<string, string>;
  /** Conversation id → the turns saved on this computer, in order. */
  turns: Map<string, string[]>;
  /** How many of the other's memories its last ingest while writing had brought (how much the writes overlapped the carrying). */
  seen: number;
}

const stateOf = (node: Instance) => path.join(path.dirname(node.folder), 'state');

/** The memory tool, as Claude calls it; fails the test on an error answer. */
async function tool(v: Vault, input: Record<string, unknown>): Promise<string> {
  const answer = await runMemoryCommand(createMemoryHandlers(v, { guardMode: () => 'allow' }), input);
  if (answer.is_error) throw new Error(`memory tool ${JSON.stringify(input)}: ${answer.content}`);
  return answer.content;
}

async function addTurn(c: Computer, id: string, words: string): Promise<void> {
  const done = await new Conversations(c.v).update(id, turn(words));
  if (!done) throw new Error(`conversation ${id} is gone on ${c.node.name}`);
  c.turns.set(id, [...(c.turns.get(id) ?? []), words]);
}

/**
 * What one computer does while the other does the same: the shared memory edited first (before either has seen the
 * other's edit), then its own memories one by one, a turn now and then, and an ingest every few writes, as the app's
 * watcher would when Syncthing delivers files.
 */
async function work(c: Computer, shared: string, edit: () => Promise<void>): Promise<void> {
  await edit();
  const mine = (await new Conversations(c.v).create()).id;
  for (let i = 0; i < OWN; i++) {
    const p = `/memories/${c.node.name}/note-${i}.md`;
    const text = `note ${i} from computer ${c.node.name}\n${'x'.repeat(40 * i)}\n`;
    await tool(c.v, { command: 'create', path: p, file_text: text });
    c.memories.set(p, text);
    if (SHARED_EVERY === 1 || i % SHARED_EVERY === 1) await addTurn(c, shared, `${c.node.name} says ${i} in the shared chat`);
    if (i % 4 === 3) await addTurn(c, mine, `${c.node.name} says ${i} in its own chat`);
    if (i % 3 === 2) {
      await c.v.ingest();
      c.seen = c.v.memory.list('/memories', Infinity).filter((e) => e.kind === 'file' && !e.path.startsWith(`/memories/${c.node.name}/`) && e.path !== SHARED).length;
    }
    // Spread over a few of Syncthing's watcher delays, so files are carried (and ingested) while they still grow.
    await new Promise((r) => setTimeout(r, 100));
  }
  // A later version of one of its own: the last acknowledged text is the one that must be there.
  const p = `/memories/${c.node.name}/note-0.md`;
  await tool(c.v, { command: 'str_replace', path: p, old_str: 'note 0', new_str: 'note 0, edited' });
  c.memories.set(p, c.memories.get(p)!.replace('note 0', 'note 0, edited'));
}

/** Every memory file with its text, and every directory, as computer `v` lists them. */
async function memoriesOf(v: Vault): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of v.memory.list('/memories', Infinity)) out[e.path] = e.kind === 'file' ? await v.memory.readFile(e.path) : '(directory)';
  return out;
}

/** Each conversation whole, by id, as computer `v` reads it. */
async function conversationsOf(v: Vault): Promise<Record<string, StoredConversation | undefined>> {
  const cs = new Conversations(v);
  const out: Record<string, StoredConversation | undefined> = {};
  for (const s of await cs.list()) out[s.id] = await cs.get(s.id);
  return out;
}

it('two computers writing one vault at once through real Syncthing end with the same memories and conversations, both edits of a shared memory, nothing acknowledged lost; a passphrase changed on one opens it on the other', async () => {
  const t0 = Date.now();
  const st = await Syncthing.start(2);
  const opened: Vault[] = [];
  try {
    const [na, nb] = [st.a, st.b];

    // A makes the vault in the root of its synced folder (beside Syncthing's .stfolder), with a shared memory and a
    // conversation: its first change also takes vault.json to version 2, before B ever sees it.
    const made = await Vault.create(na.folder, PASS, { kdf: FLOOR, stateDir: stateOf(na), format2: true, journalLimit: CHECKPOINT_EVERY });
    opened.push(made.vault);
    const a: Computer = { node: na, v: made.vault, memories: new Map(), turns: new Map(), seen: 0 };
    await tool(a.v, { command: 'create', path: SHARED, file_text: SHARED_TEXT });
    const shared = (await new Conversations(a.v).create()).id;
    await addTurn(a, shared, 'A starts the shared chat');
    await a.v.ingest();
    await st.settled();

    // B opens what Syncthing brought, with its own state folder and the same passphrase.
    const vb = await Vault.open(nb.folder, { stateDir: stateOf(nb), format2: true, journalLimit: CHECKPOINT_EVERY });
    opened.push(vb);
    expect(await vb.unlock(PASS)).toMatchObject({ rolledBack: false, damaged: [] });
    const b: Computer = { node: nb, v: vb, memories: new Map(), turns: new Map(), seen: 0 };
    expect(await vb.memory.readFile(SHARED)).toBe(SHARED_TEXT);
    expect(said(await new Conversations(vb).get(shared))).toEqual(['A starts the shared chat']);
    const afterJoin = Date.now();

    // At once: A changes the first line of the shared memory, B adds a line at its end; then each its own writes.
    await Promise.all([
      work(a, shared, () => tool(a.v, { command: 'str_replace', path: SHARED, old_str: 'first: as made on A', new_str: 'first: changed on A' }).then(() => undefined)),
      work(b, shared, () => tool(b.v, { command: 'insert', path: SHARED, insert_line: 5, insert_text: 'added on B' }).then(() => undefined)),
    ]);
    const afterWork = Date.now();

    // Until nothing is left to carry: Syncthing settled, each ingested what arrived, and that ingest wrote nothing new
    // (an ingest may write: a computer names itself once it sees another, and confirms its last changes).
    await st.settled();
    let rounds = 0;
    await st.until(
      'both computers have ingested everything and neither writes anything more',
      async () => {
        rounds++;
        const before = JSON.stringify([...(await tree(na.folder)).files]);
        const waiting = [...(await a.v.ingest()), ...(await b.v.ingest())];
        await st.settled();
        const after = JSON.stringify([...(await tree(na.folder)).files]);
        if (waiting.length) return `still arriving: ${waiting.join('; ')}`;
        return before === after || 'an ingest wrote something: once more';
      },
      60_000,
    );
    const afterSettle = Date.now();

    // The same memories, with the same texts, on both; every acknowledged write there; both edits of the shared one.
    const memA = await memoriesOf(a.v);
    expect(await memoriesOf(b.v)).toEqual(memA);
    expect(memA[SHARED]).toBe(['# Shared', 'first: changed on A', 'middle line one', 'middle line two', 'last: as made on A', 'added on B', ''].join('\n'));
    for (const c of [a, b]) for (const [p, text] of c.memories) expect(memA[p], `${p} written on ${c.node.name}`).toBe(text);
    const files = Object.keys(memA).filter((p) => memA[p] !== '(directory)');
    expect(files.sort()).toEqual([SHARED, ...a.memories.keys(), ...b.memories.keys()].sort());

    // The same conversations on both; every turn either saved is there, each computer's in its own order.
    const convA = await conversationsOf(a.v);
    expect(await conversationsOf(b.v)).toEqual(convA);
    expect(Object.keys(convA).sort()).toEqual([...new Set([...a.turns.keys(), ...b.turns.keys()])].sort());
    for (const [id, c] of Object.entries(convA)) {
      const got = said(c);
      // Exactly the turns saved, once each.
      expect([...got].sort(), `turns in ${id}`).toEqual([...(a.turns.get(id) ?? []), ...(b.turns.get(id) ?? [])].sort());
      for (const x of [a, b]) expect(got.filter((w) => x.turns.get(id)?.includes(w)), `${x.node.name}'s turns in ${id}, in order`).toEqual(x.turns.get(id) ?? []);
    }
    // Listed alike (by id: two saved in the same millisecond may list in either order).
    const listed = async (v: Vault) => (await new Conversations(v).list()).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(await listed(b.v)).toEqual(await listed(a.v));

    // Nothing damaged and nothing still arriving; two computers, the same two on both, each knowing which it is.
    for (const c of [a, b]) expect(await c.v.verify(), `verify on ${c.node.name}`).toEqual({ ok: true, problems: [] });
    const devA = await a.v.devices();
    const devB = await b.v.devices();
    expect(devA.map((d) => d.id).sort()).toEqual(devB.map((d) => d.id).sort());
    expect(devA).toHaveLength(2);
    for (const list of [devA, devB]) {
      expect(list.filter((d) => d.current)).toHaveLength(1);
      // Each named itself (its host name) once it saw the other.
      for (const d of list) expect(d).toMatchObject({ forgotten: false, name: expect.stringMatching(/\S/) });
    }
    expect(devA.find((d) => d.current)!.id).not.toBe(devB.find((d) => d.current)!.id);

    // No file was written on both sides, so Syncthing made no conflict copy; the two folders are the same files.
    const [ta, tb] = [await tree(na.folder), await tree(nb.folder)];
    expect([...ta.files.keys()].filter((f) => f.includes('.sync-conflict-'))).toEqual([]);
    expect([...tb.files]).toEqual([...ta.files]);

    // A passphrase changed on A opens the vault on B once Syncthing has carried vault.json; B's old one is refused,
    // saying it was changed on another computer. B, unlocked meanwhile, follows the new header at its next ingest.
    const NEW = 'a new passphrase set on computer a';
    await a.v.changePassphrase(PASS, NEW);
    await st.settled();
    await b.v.ingest();
    b.v.lock();
    await expect(b.v.unlock(PASS)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE', message: expect.stringContaining('changed on another computer') });
    await b.v.unlock(NEW);
    expect(await b.v.verify()).toEqual({ ok: true, problems: [] });

    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `syncthing e2e: start and join ${s(afterJoin - t0)}, concurrent writes ${s(afterWork - afterJoin)}, settle ${s(afterSettle - afterWork)} (${rounds} ingest rounds); while writing a saw ${a.seen} and b ${b.seen} of the other's ${OWN} memories; ` +
        `${ta.files.size} files; Syncthing temporaries seen: ${st.tempsSeen.size ? [...st.tempsSeen].join(', ') : 'none'}`,
    );
  } finally {
    for (const v of opened) await v.close().catch(() => undefined);
    await st.stop();
  }
}, 120_000);

