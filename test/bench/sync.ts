/**
 * `npm run bench:sync`: what several computers on one vault (format 2) cost,
 * each figure against a reference measured in the same run:
 * - **see**: the time for a computer to take in N new memories another one
 *   wrote, once their files are in its folder (`ingest()`), against that
 *   computer reading the same vault from scratch (an unlock);
 * - **open / verify** of a vault three computers wrote, M memories each,
 *   against one computer that wrote all 3×M itself.
 * - **rotate**: a key rotation of a format-2 vault of R memories (a new epoch,
 *   everything sealed again in its checkpoint), against the format-1 rotation
 *   of the same memories;
 * - **rejoin**: the other computer's first unlock after that rotation (it reads
 *   both epochs, then writes its keys file and checkpoint and removes its old
 *   files), against its unlock of the same vault before the rotation.
 * Memories go in as imports of 500 (one change each), as `mnemo import` does.
 * Sizes: MNEMO_BENCH_SEE (1,000), MNEMO_BENCH_EACH (10,000) and
 * MNEMO_BENCH_ROTATE (2,000). Prints a table, then one JSON line.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Vault } from '../../electron/core/vault/vault';
import { carry } from '../unit/sync/two-computers';
import { FLOOR } from '../unit/vault/helpers';

const SEE = Number(process.env.MNEMO_BENCH_SEE ?? 1000);
const EACH = Number(process.env.MNEMO_BENCH_EACH ?? 10_000);
const ROTATE = Number(process.env.MNEMO_BENCH_ROTATE ?? 2000);
const PASS = 'bench passphrase for sync';
const LIMITS = { overwrite: false, source: 'user' as const, maxFileBytes: 1 << 20, maxTotalBytes: 2 ** 31 };

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const text = (who: string, i: number) => `# Note ${i} from ${who}\nThe user mentioned something worth keeping, number ${i}, on ${who}.\n`;

async function fill(v: Vault, who: string, n: number): Promise<void> {
  for (let from = 0; from < n; from += 500) {
    const items = Array.from({ length: Math.min(500, n - from) }, (_, k) => ({ path: `/memories/${who}/n${from + k}.md`, text: text(who, from + k) }));
    await v.importFiles(items, LIMITS);
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-sync-'));
const opts = (state: string) => ({ stateDir: path.join(root, state), format2: true, ackDelayMs: 0 });
/** A new format-2 vault in `dir` (already written once, so it is multi-device on disk), closed; its recovery key. */
async function made(dir: string, state: string): Promise<string> {
  const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts(state) });
  await vault.setHistoryDepth(20);
  await vault.close();
  return recoveryKey;
}
/**
 * Opens, unlocks (timed), verifies (timed) and closes the vault in `dir` as computer `state`. The unlock is by
 * recovery key, which costs no key derivation, so the time is the vault's own reading.
 */
async function openVerify(dir: string, state: string, key: string): Promise<{ unlockMs: number; verifyMs: number; files: number }> {
  const v = await Vault.open(dir, opts(state));
  try {
    const [, unlockMs] = await timed(() => v.unlockWithRecoveryKey(key));
    const [report, verifyMs] = await timed(() => v.verify());
    if (!report.ok) throw new Error(`verify failed: ${report.problems.slice(0, 3).join('; ')}`);
    return { unlockMs, verifyMs, files: v.memory.list('/memories', Infinity).filter((e) => e.kind === 'file').length };
  } finally {
    await v.close();
  }
}

try {
  // 1. See N memories written elsewhere.
  const a = path.join(root, 'see-a');
  const b = path.join(root, 'see-b');
  const keyA = await made(a, 'see-sa');
  await fs.cp(a, b, { recursive: true });
  const va = await Vault.open(a, opts('see-sa'));
  await va.unlock(PASS);
  const vb = await Vault.open(b, opts('see-sb'));
  await vb.unlock(PASS);
  await fill(vb, 'b', SEE);
  await vb.close();
  await carry(b, a);
  const [, ingestMs] = await timed(() => va.ingest());
  const seen = va.memory.list('/memories/b', 1).length;
  if (seen !== SEE) throw new Error(`saw ${seen} of ${SEE} memories`);
  await va.close();
  // Reference: the same computer reading the same vault (now holding them) from scratch.
  const refs: number[] = [];
  for (let i = 0; i < 3; i++) refs.push((await openVerify(a, 'see-sa', keyA)).unlockMs);
  const seeRef = median(refs);

  // 2. Three computers × EACH memories against one computer with all of them.
  const shared = path.join(root, 'three');
  const key3 = await made(shared, 's0');
  for (const [i, who] of ['x', 'y', 'z'].entries()) {
    const v = await Vault.open(shared, opts(`s${i}`));
    await v.unlock(PASS);
    await fill(v, who, EACH);
    await v.close();
  }
  const single = path.join(root, 'one');
  const key1 = await made(single, 'o0');
  const v1 = await Vault.open(single, opts('o0'));
  await v1.unlock(PASS);
  for (const who of ['x', 'y', 'z']) await fill(v1, who, EACH);
  await v1.close();
  const three: Array<{ unlockMs: number; verifyMs: number; files: number }> = [];
  const one: typeof three = [];
  for (let i = 0; i < 3; i++) {
    three.push(await openVerify(shared, 's0', key3));
    one.push(await openVerify(single, 'o0', key1));
  }
  for (const r of [...three, ...one]) if (r.files !== 3 * EACH) throw new Error(`listed ${r.files} of ${3 * EACH}`);
  const m3 = { unlockMs: median(three.map((r) => r.unlockMs)), verifyMs: median(three.map((r) => r.verifyMs)) };
  const m1 = { unlockMs: median(one.map((r) => r.unlockMs)), verifyMs: median(one.map((r) => r.verifyMs)) };

  // 3. A key rotation in format 2 against format 1, and the other computer's first unlock after it.
  const rot = async (format2: boolean, dir: string, state: string, before?: (key: string) => Promise<void>): Promise<{ key: string; ms: number }> => {
    const { vault, recoveryKey } = await Vault.create(dir, PASS, { kdf: FLOOR, ...opts(state), format2 });
    await fill(vault, 'r', ROTATE);
    await vault.close();
    if (format2) await fs.cp(dir, `${dir}-b`, { recursive: true });
    await before?.(recoveryKey);
    const v = await Vault.open(dir, { ...opts(state), format2 });
    await v.unlockWithRecoveryKey(recoveryKey);
    const [key, ms] = await timed(() => v.rotateKeys(PASS));
    await v.close();
    return { key: format2 ? key : recoveryKey, ms };
  };
  const r1 = await rot(false, path.join(root, 'rot1'), 'r1');
  const rotDir = path.join(root, 'rot2');
  let rejoinRef = 0;
  const r2 = await rot(true, rotDir, 'r2', async (key) => {
    // The other computer's reference: its unlock of the same vault before the rotation (one epoch).
    rejoinRef = (await openVerify(`${rotDir}-b`, 'r2b', key)).unlockMs;
  });
  // The other computer gets the rotating one's files and header, then unlocks under the new keys.
  await carry(rotDir, `${rotDir}-b`);
  await fs.copyFile(path.join(rotDir, 'vault.json'), path.join(`${rotDir}-b`, 'vault.json'));
  const vb2 = await Vault.open(`${rotDir}-b`, opts('r2b'));
  const [, rejoinMs] = await timed(() => vb2.unlockWithRecoveryKey(r2.key));
  const rejoined = vb2.memory.list('/memories/r', 1).length;
  if (rejoined !== ROTATE) throw new Error(`rejoined with ${rejoined} of ${ROTATE} memories`);
  await vb2.close();

  const result = {
    see: { memories: SEE, ingestMs: round(ingestMs), unlockRefMs: round(seeRef), ratio: round(ingestMs / seeRef) },
    open: { memories: 3 * EACH, threeDevicesMs: round(m3.unlockMs), oneDeviceMs: round(m1.unlockMs), ratio: round(m3.unlockMs / m1.unlockMs) },
    verify: { memories: 3 * EACH, threeDevicesMs: round(m3.verifyMs), oneDeviceMs: round(m1.verifyMs), ratio: round(m3.verifyMs / m1.verifyMs) },
    rotate: { memories: ROTATE, format2Ms: round(r2.ms), format1Ms: round(r1.ms), ratio: round(r2.ms / r1.ms) },
    rejoin: { memories: ROTATE, unlockAfterMs: round(rejoinMs), unlockBeforeMs: round(rejoinRef), ratio: round(rejoinMs / rejoinRef) },
  };
  console.log(`seeing ${SEE} memories written on another computer: ingest ${result.see.ingestMs} ms vs an unlock reading them all ${result.see.unlockRefMs} ms (×${result.see.ratio})`);
  console.log(`open, ${3 * EACH} memories: 3 computers × ${EACH} ${result.open.threeDevicesMs} ms vs one computer ${result.open.oneDeviceMs} ms (×${result.open.ratio})`);
  console.log(`verify, ${3 * EACH} memories: 3 computers × ${EACH} ${result.verify.threeDevicesMs} ms vs one computer ${result.verify.oneDeviceMs} ms (×${result.verify.ratio})`);
  console.log(`key rotation, ${ROTATE} memories: format 2 ${result.rotate.format2Ms} ms vs format 1 ${result.rotate.format1Ms} ms (×${result.rotate.ratio})`);
  console.log(`the other computer's first unlock after it: ${result.rejoin.unlockAfterMs} ms vs an unlock before it ${result.rejoin.unlockBeforeMs} ms (×${result.rejoin.ratio})`);
  console.log(JSON.stringify(result));
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
