/**
 * `npm run bench:storage`: what saving one turn of a conversation costs at
 * turn 1 and at turn 1,000 — bytes the vault writes (counted at its file
 * layer) and wall time — through the same call a turn makes, with the API
 * history handed over as copies, as the SDK returns it. Also the time to read
 * the 1,000-turn conversation back. Then the same with versions made at ten
 * exchanges (branches.ts), as a ratio to the turns before them, and what a
 * switch between versions writes (again once both versions are unchanged
 * since last shown). Prints a table, then one JSON line.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { Conversations, type StoredConversation } from '../../electron/core/chat/conversations';
import { Vault } from '../../electron/core/vault/vault';
import { countingFs, FLOOR } from '../unit/vault/helpers';

const TURNS = Number(process.env.MNEMO_BENCH_TURNS ?? 1000);
const WINDOW = 10;
const reply = (i: number) => `Answer ${i}. ${'A paragraph of a reply about as long as a real one, with an example or two. '.repeat(10)}`;

const { fs: counting, written } = countingFs();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-storage-'));
try {
  const { vault } = await Vault.create(path.join(root, 'vault'), 'bench passphrase', { kdf: FLOOR, stateDir: path.join(root, 'state'), fs: counting });
  const conversations = new Conversations(vault);
  let conv: StoredConversation | undefined = await conversations.create();
  const id = conv.id;
  const bytes: number[] = [];
  const ms: number[] = [];
  const saveTurns = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const question = `Question ${i}: tell me more about that.`;
      const history: BetaMessageParam[] = [...conv!.messages, { role: 'user', content: question }, { role: 'assistant', content: [{ type: 'text', text: reply(i) }] }];
      // The SDK hands the history back as copies of what was sent.
      const messages = JSON.parse(JSON.stringify(history)) as BetaMessageParam[];
      const now = Date.now();
      const b0 = written.bytes;
      const t0 = performance.now();
      conv = await conversations.update(
        id,
        (c) => ({
          ...c,
          updated: now,
          messages,
          turnStarts: [...(c.turnStarts ?? []), messages.length - 2],
          transcript: [...c.transcript, { role: 'user', text: question, at: now }, { role: 'assistant', text: reply(i), at: now, tools: [] }],
        }),
        conv,
      );
      ms.push(performance.now() - t0);
      bytes.push(written.bytes - b0);
    }
  };
  await saveTurns(0, TURNS);
  const t0 = performance.now();
  const read = await conversations.get(id);
  const readMs = performance.now() - t0;
  if (read?.transcript.length !== TURNS * 2) throw new Error('the conversation did not read back whole');
  const first = { bytes: median(bytes.slice(0, WINDOW)), ms: round(median(ms.slice(0, WINDOW))) };
  const last = { bytes: median(bytes.slice(-WINDOW)), ms: round(median(ms.slice(-WINDOW))) };

  // Versions (branches.ts): a new version at FORKS exchanges spread over the conversation, each switched back from,
  // so the same 1,000 exchanges are shown with FORKS forks in the head; then the same turns' saves again.
  const FORKS = 10;
  const switchBytes = async (at: number, version: number) => {
    const b0 = written.bytes;
    await conversations.showVersion(id, at, version);
    return written.bytes - b0;
  };
  const switched: Record<string, number> = {};
  for (let k = 0; k < FORKS; k++) {
    const at = Math.floor((k * (TURNS - 1)) / (FORKS - 1));
    await conversations.branch(id, at, 'regenerate');
    await conversations.update(id, (c) => ({ ...c, messages: [...c.messages, { role: 'user', content: `Question ${at}` }, { role: 'assistant', content: [{ type: 'text', text: 'another reply' }] }], turnStarts: [...(c.turnStarts ?? []), c.messages.length], transcript: [...c.transcript, { role: 'user', text: `Question ${at}`, at: 0 }, { role: 'assistant', text: 'another reply', at: 0, tools: [] }] }));
    switched[`to the full version at exchange ${at}`] = await switchBytes(at, 0);
  }
  switched[`away from it at exchange 0 and back`] = (await switchBytes(0, 1)) + (await switchBytes(0, 0));
  // Browsing: both versions are unchanged since they were last shown, so neither is stored again; only the log takes the one shown.
  const browsing = (await switchBytes(0, 1)) + (await switchBytes(0, 0));
  conv = await conversations.get(id);
  if (conv?.transcript.length !== TURNS * 2 || conv.forks?.length !== FORKS) throw new Error('the versions did not come back whole');
  const headBytes = JSON.stringify(conv.forks).length;
  await saveTurns(TURNS, TURNS + WINDOW);
  const t1 = performance.now();
  await conversations.get(id);
  const forkedReadMs = performance.now() - t1;
  await vault.close();

  const ratio = { bytes: round(last.bytes / first.bytes), ms: round(last.ms / first.ms) };
  console.log(`saving one turn of a ${TURNS}-turn conversation (median of ${WINDOW} saves; ~1 KB of text per turn)`);
  console.log(`${''.padEnd(14)}${'bytes written'.padStart(15)}${'ms'.padStart(8)}`);
  console.log(`${`turns 1-${WINDOW}`.padEnd(14)}${String(first.bytes).padStart(15)}${String(first.ms).padStart(8)}`);
  console.log(`${`turns ${TURNS - WINDOW + 1}-${TURNS}`.padEnd(14)}${String(last.bytes).padStart(15)}${String(last.ms).padStart(8)}`);
  console.log(`ratio late/early: bytes ${ratio.bytes}, time ${ratio.ms}; reading the ${TURNS}-turn conversation back: ${round(readMs, 1)} ms`);
  const forked = { bytes: median(bytes.slice(-WINDOW)), ms: round(median(ms.slice(-WINDOW))) };
  const forkRatio = { bytes: round(forked.bytes / last.bytes), ms: round(forked.ms / last.ms) };
  console.log(`with versions at ${FORKS} exchanges (fork records in the head: ${headBytes} bytes): a turn's save writes ${forked.bytes} bytes, ${forked.ms} ms; ratio to before the versions: bytes ${forkRatio.bytes}, time ${forkRatio.ms}; reading back: ${round(forkedReadMs, 1)} ms`);
  for (const [what, b] of Object.entries(switched).filter((_, i, all) => i === 0 || i === all.length - 2 || i === all.length - 1)) console.log(`  switching ${what}: ${b} bytes written`);
  console.log(`  the same away and back again, neither version changed since shown: ${browsing} bytes written`);
  const first0 = Object.values(switched)[0]!;
  const lastN = Object.values(switched)[FORKS - 1]!;
  console.log(JSON.stringify({ turns: TURNS, first, last, ratio, readMs: round(readMs, 1), versions: { forks: FORKS, headBytes, turn: forked, ratio: forkRatio, readMs: round(forkedReadMs, 1), switchBytes: { atFirst: first0, atLast: lastN, awayAndBack: Object.values(switched).at(-1), again: browsing } } }));
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
