/**
 * What a per-call hold costs in a big vault (10,000 memories under
 * MNEMO_DEEP=1, 2,000 sampled): nothing changed, a journal tail to read, and a
 * checkpoint elsewhere (a full reload). Prints the numbers; asserts only what
 * each hold must see, never a time.
 */
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { DEEP } from '../../deep';
import { PASS } from './helpers';
import { cleanupsAfterEach, madeVault } from './lock-children';

const cleanup = cleanupsAfterEach();
const upsert = { mode: 'upsert', source: 'cli' } as const;

async function timed(what: string, n: number, fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const ms = (performance.now() - t0) / n;
  console.log(`per-call hold cost: ${what}: ${ms.toFixed(2)} ms`);
  return ms;
}

it(`a hold in a vault of ${DEEP ? '10,000' : '2,000'} memories: cheap when nothing changed or only the journal grew`, async () => {
  const N = DEEP ? 10_000 : 2_000;
  const { dir, state } = await madeVault('mnemo-scale-', cleanup);
  const a = await Vault.open(dir, { stateDir: state, lockPerCall: true });
  cleanup(() => a.close());
  await a.unlock(PASS);
  const items = Array.from({ length: N }, (_, i) => ({ path: `/memories/d${i % 100}/m${i}.md`, text: `memory ${i}\n`.repeat(8) }));
  await a.importFiles(items, { overwrite: false, source: 'cli', maxFileBytes: 1 << 20, maxTotalBytes: 1 << 30 });
  // b: the other holder, with a journal limit past the tail written below, so no checkpoint comes in between.
  const b = await Vault.open(dir, { stateDir: state, lockPerCall: true, journalLimit: 100_000 });
  cleanup(() => b.close());
  await b.unlock(PASS);
  await a.close();
  const a2 = await Vault.open(dir, { stateDir: state, lockPerCall: true, journalLimit: 100_000 });
  cleanup(() => a2.close());
  const u0 = performance.now();
  await a2.unlock(PASS);
  console.log(`per-call hold cost: unlock (full load, ${N} memories, KDF included): ${(performance.now() - u0).toFixed(0)} ms`);
  await timed('nothing changed (empty hold)', 50, () => a2.hold(async () => undefined));
  await timed('nothing changed (readFile)', 50, () => a2.memory.readFile('/memories/d1/m1.md'));
  await timed('own write, nothing else changed', 30, () => a2.memory.writeFile('/memories/own.md', 'x', upsert));
  // b writes one record between two holds of a2.
  let i = 0;
  const t1 = performance.now();
  for (let k = 0; k < 30; k++) {
    await b.memory.writeFile('/memories/b.md', `b ${i++}`, upsert);
    await a2.hold(async () => undefined);
  }
  console.log(`per-call hold cost: one record by another holder, then a hold (both timed): ${((performance.now() - t1) / 30).toFixed(2)} ms`);
  expect(await a2.memory.readFile('/memories/b.md')).toBe(`b ${i - 1}`);
  // A long tail: 2,000 records by b, then one hold of a2.
  const tail = DEEP ? 4_000 : 1_000;
  for (let k = 0; k < tail; k++) await b.memory.writeFile(`/memories/tail/t${k % 50}.md`, `t ${k}`, upsert);
  await timed(`a tail of ${tail} records by another holder`, 1, () => a2.hold(async () => undefined));
  expect(await a2.memory.readFile('/memories/tail/t0.md')).toBe(`t ${tail - 50}`);
  // A checkpoint by b: a2 loads afresh.
  await b.close();
  await timed(`after a checkpoint elsewhere (full reload of ${N} memories)`, 1, () => a2.hold(async () => undefined));
  await timed('nothing changed again (empty hold)', 50, () => a2.hold(async () => undefined));
  expect(await a2.verify()).toEqual({ ok: true, problems: [] });
}, 600_000);
