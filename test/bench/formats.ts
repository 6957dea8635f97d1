/**
 * Part of `npm run bench` (run.ts starts it in its own process): what format 2
 * (the vault several computers may write, the default since 2ec6d05) costs a
 * user with ONE computer, each figure against format 1 (`format2: false`, the
 * single-writer vault) measured in the same run, on the same machine load:
 * - **unlock** of a vault of M memories (by recovery key: no key derivation,
 *   so the time is the vault's own reading), median of 3;
 * - **list** of its M memories (`memory.list('/memories', Infinity)`), median of 5;
 * - **write** of one small memory in that vault, median of 20;
 * - **heap** held after that unlock (after a forced GC), its growth over the heap before;
 * - **W writes to one memory**: a write's median, then the unlock after them and
 *   the bytes of the vault folder after close;
 * - **a T-turn conversation**: the save of turn T+1 (median of 10) and its open
 *   (`Conversations.get`), and the vault's bytes after close.
 * Sizes: MNEMO_BENCH_F2_MEMORIES (10,000), MNEMO_BENCH_F2_WRITES (1,000),
 * MNEMO_BENCH_F2_TURNS (1,000). Prints one JSON line (run.ts prints the table).
 * Memories go in as imports of 500 (one change each), as `mnemo import` does.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { Conversations, type StoredConversation } from '../../electron/core/chat/conversations';
import { Vault } from '../../electron/core/vault/vault';
import { FLOOR } from '../unit/vault/helpers';

export interface FormatRow {
  measure: string;
  format2: number;
  format1: number;
  ratio: number;
  unit: string;
}

const MEMORIES = Number(process.env.MNEMO_BENCH_F2_MEMORIES ?? 10_000);
const WRITES = Number(process.env.MNEMO_BENCH_F2_WRITES ?? 1000);
const TURNS = Number(process.env.MNEMO_BENCH_F2_TURNS ?? 1000);
const PASS = 'bench passphrase for formats';
const LIMITS = { overwrite: false, source: 'user' as const, maxFileBytes: 1 << 20, maxTotalBytes: 2 ** 31 };
const BODY = 'The user prefers short answers with examples.\n';
const reply = (i: number) => `Answer ${i}. ${'A paragraph of a reply about as long as a real one, with an example or two. '.repeat(10)}`;

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const gc = () => (globalThis as { gc?: () => void }).gc?.();

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

/** Bytes of every file below `dir`. */
async function bytesOf(dir: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += (await fs.stat(path.join(e.parentPath, e.name))).size;
  return n;
}

interface Made {
  dir: string;
  opts: { stateDir: string; format2: boolean; ackDelayMs: number };
  key: string;
}

async function make(root: string, name: string, format2: boolean): Promise<{ made: Made; vault: Vault }> {
  const dir = path.join(root, name);
  const opts = { stateDir: path.join(root, `${name}-state`), format2, ackDelayMs: 0 };
  const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts });
  return { made: { dir, opts, key: recoveryKey }, vault };
}

async function reopen(m: Made): Promise<[Vault, number]> {
  const v = await Vault.open(m.dir, m.opts);
  const [, ms] = await timed(() => v.unlockWithRecoveryKey(m.key));
  return [v, ms];
}

const write = (v: Vault, p: string, i: number) => v.memory.writeFile(p, `${BODY}edit ${i}\n`, { mode: 'upsert', source: 'user' });

/** The vault of M memories: unlock, list, a write, the heap it holds. */
async function many(root: string, format2: boolean) {
  const { made, vault } = await make(root, `many${format2 ? 2 : 1}`, format2);
  for (let from = 0; from < MEMORIES; from += 500) {
    const items = Array.from({ length: Math.min(500, MEMORIES - from) }, (_, k) => ({ path: `/memories/d${(from + k) % 100}/n${from + k}.md`, text: `${BODY}note ${from + k}\n` }));
    await vault.importFiles(items, LIMITS);
  }
  await vault.close();
  const unlocks: number[] = [];
  for (let i = 0; i < 2; i++) {
    const [v, ms] = await reopen(made);
    unlocks.push(ms);
    await v.close();
  }
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const [v, ms] = await reopen(made);
  unlocks.push(ms);
  gc();
  const heapMB = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  const lists: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [entries, t] = await timed(() => v.memory.list('/memories', Infinity));
    if (entries.filter((e) => e.kind === 'file').length !== MEMORIES) throw new Error('listed the wrong number of memories');
    lists.push(t);
  }
  const writes: number[] = [];
  for (let i = 0; i < 20; i++) writes.push((await timed(() => write(v, '/memories/extra.md', i)))[1]);
  await v.close();
  return { unlockMs: median(unlocks), listMs: median(lists), writeMs: median(writes), heapMB };
}

/** W writes to one memory in a small vault: a write's median, the unlock after, the bytes after close. */
async function oneMemory(root: string, format2: boolean) {
  const { made, vault } = await make(root, `one${format2 ? 2 : 1}`, format2);
  const writes: number[] = [];
  for (let i = 0; i < WRITES; i++) writes.push((await timed(() => write(vault, '/memories/one.md', i)))[1]);
  await vault.close();
  const unlocks: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [v, ms] = await reopen(made);
    unlocks.push(ms);
    await v.close();
  }
  return { writeMs: median(writes), unlockMs: median(unlocks), bytes: await bytesOf(made.dir) };
}

/** A conversation of T turns (~1 KB of text each, saved as a turn saves it): turn T+1's save, the open, the bytes. */
async function conversation(root: string, format2: boolean) {
  const { made, vault } = await make(root, `conv${format2 ? 2 : 1}`, format2);
  const conversations = new Conversations(vault);
  let conv: StoredConversation | undefined = await conversations.create();
  const id = conv.id;
  const ms: number[] = [];
  for (let i = 0; i < TURNS + 10; i++) {
    const question = `Question ${i}: tell me more about that.`;
    const history: BetaMessageParam[] = [...conv!.messages, { role: 'user', content: question }, { role: 'assistant', content: [{ type: 'text', text: reply(i) }] }];
    const messages = JSON.parse(JSON.stringify(history)) as BetaMessageParam[];
    const now = Date.now();
    const [next, t] = await timed(() =>
      conversations.update(
        id,
        (c) => ({
          ...c,
          updated: now,
          messages,
          turnStarts: [...(c.turnStarts ?? []), messages.length - 2],
          transcript: [...c.transcript, { role: 'user', text: question, at: now }, { role: 'assistant', text: reply(i), at: now, tools: [] }],
        }),
        conv,
      ),
    );
    conv = next;
    if (i >= TURNS) ms.push(t);
  }
  await vault.close();
  const opens: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [v] = await reopen(made);
    const [c, t] = await timed(() => new Conversations(v).get(id));
    if (c?.transcript.length !== (TURNS + 10) * 2) throw new Error('the conversation did not read back whole');
    opens.push(t);
    await v.close();
  }
  return { saveMs: median(ms), openMs: median(opens), bytes: await bytesOf(made.dir) };
}

export async function runFormats(): Promise<FormatRow[]> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-formats-'));
  try {
    const rows: FormatRow[] = [];
    const row = (measure: string, f2: number, f1: number, unit: string, d = 2) => rows.push({ measure, format2: round(f2, d), format1: round(f1, d), ratio: round(f2 / f1), unit });
    // Format 1 first, then format 2, for each part: both see the same machine, a minute apart at most.
    const m1 = await many(root, false);
    const m2 = await many(root, true);
    row(`unlock, ${MEMORIES} memories (no KDF)`, m2.unlockMs, m1.unlockMs, 'ms', 1);
    row(`list ${MEMORIES} memories`, m2.listMs, m1.listMs, 'ms', 1);
    row(`one write, ${MEMORIES} memories in the vault`, m2.writeMs, m1.writeMs, 'ms');
    row(`heap held after unlock, ${MEMORIES} memories`, m2.heapMB, m1.heapMB, 'MB', 1);
    const o1 = await oneMemory(root, false);
    const o2 = await oneMemory(root, true);
    row(`one write, ${WRITES} writes to one memory (median)`, o2.writeMs, o1.writeMs, 'ms');
    row(`unlock after ${WRITES} writes to one memory`, o2.unlockMs, o1.unlockMs, 'ms', 1);
    row(`disk after ${WRITES} writes to one memory`, o2.bytes, o1.bytes, 'bytes', 0);
    const c1 = await conversation(root, false);
    const c2 = await conversation(root, true);
    row(`save of a turn after ${TURNS} turns`, c2.saveMs, c1.saveMs, 'ms');
    row(`open of a ${TURNS + 10}-turn conversation`, c2.openMs, c1.openMs, 'ms', 1);
    row(`disk after a ${TURNS + 10}-turn conversation`, c2.bytes, c1.bytes, 'bytes', 0);
    return rows;
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  process.stdout.write(JSON.stringify(await runFormats()) + '\n');
}
