import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { drive, dump, FLOOR, FULL, makeDirs, PASS, type Dirs, type Keys } from '../vault/crash-sim';
import { SimFs, type Image } from '../vault/sim-fs';

/**
 * The crash simulator of format 1 (test/unit/vault/crash-sim.ts) over format
 * 2: a power cut after any single file-system call of a write, a str_replace,
 * a delete, a checkpoint with compaction, emptying the trash, or the upgrade
 * of a v1 vault by its first write leaves a vault that opens, verifies, and
 * holds the state from before the operation or after it. Sampled in
 * `npm test`; every call under MNEMO_DEEP=1.
 */
const V2: OpenOptions = { format2: true, ackDelayMs: 0 };
let dirs: Dirs;
let small: Base;
let v1Base: Base;
let ckBase: Base;
beforeAll(async () => {
  dirs = await makeDirs();
  const setup = async (v: Vault) => {
    await v.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
    await v.memory.writeFile('/memories/a.md', 'alpha two', { mode: 'update', source: 'user' });
    await v.memory.writeFile('/memories/d/b.md', 'beta', { mode: 'create', source: 'user' });
    await v.internal.putJSON('settings', { theme: 'dark' });
    await v.memory.writeFile('/memories/gone.md', 'deleted', { mode: 'create', source: 'user' });
    await v.memory.remove('/memories/gone.md', 'user');
  };
  small = await makeBase(V2, setup);
  v1Base = await makeBase({ format2: false }, setup);
  // Checkpoints every third record on the way, and records after the last one: the next checkpoint packs and removes files.
  ckBase = await makeBase({ ...V2, journalLimit: 3 }, async (v) => {
    await setup(v);
    for (let i = 0; i < 5; i++) await v.memory.writeFile(`/memories/k${i % 2}.md`, `k ${i}`, { mode: 'upsert', source: 'user' });
  });
});

/** The file names under devices/, as a power cut would leave them. */
function deviceFiles(image: Image): string[] {
  const out: string[] = [];
  const walk = (img: Image, at: string) => {
    for (const [name, v] of img) {
      if (v instanceof Map) walk(v, `${at}${name}/`);
      else out.push(`${at}${name}`);
    }
  };
  const devices = image.get('devices');
  if (devices instanceof Map) walk(devices, '');
  return out.sort();
}
afterAll(async () => {
  await dirs.cleanup();
});

interface Base {
  image: Image;
  keys: Keys;
  /** The device's identity file in the state folder (drive() starts each op with an empty one). */
  device?: { name: string; bytes: Buffer };
}

/** Puts the base's device identity back into the state folder: the op and every check run as the device that wrote it. */
async function restoreDevice(base: Base): Promise<void> {
  if (!base.device) return;
  await fs.mkdir(dirs.state, { recursive: true });
  await fs.writeFile(path.join(dirs.state, base.device.name), base.device.bytes);
}

async function makeBase(o: OpenOptions, setup: (v: Vault) => Promise<void>): Promise<Base> {
  const sim = new SimFs(dirs.run);
  const made = await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim, journalLimit: 4, ...o });
  await setup(made.vault);
  made.vault.lock();
  await made.vault.close();
  const name = `${made.vault.vaultId}.device`;
  const bytes = await fs.readFile(path.join(dirs.state, name)).catch(() => undefined);
  return { image: sim.image('lost'), keys: { recoveryKey: made.recoveryKey, passphrases: [PASS] }, ...(bytes ? { device: { name, bytes } } : {}) };
}

const T = FULL ? 3_600_000 : 120_000;

async function crashTest(name: string, base: Base, op: (v: Vault) => Promise<Vault | string | undefined>, o: { sample?: number; sameState?: boolean; journalLimit?: number } = {}) {
  const open = async (sim: SimFs) => {
    await restoreDevice(base);
    const v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state, journalLimit: o.journalLimit, ...V2 });
    await v.unlockWithRecoveryKey(base.keys.recoveryKey);
    return v;
  };
  const dry = new SimFs(dirs.run, base.image);
  const dv = await open(dry);
  const start = dry.calls;
  const r = await op(dv);
  const total = dry.calls - start;
  if (typeof r !== 'string') await (r ?? dv).close();
  const res = await drive({ dirs, base: base.image, keys: base.keys, total, sample: o.sample ?? 8, open, op: (v) => op(v!), extra: V2 });
  console.log(`crash points (format 2): ${name}: ${res.points} of ${res.calls} calls checked, each with unsynced folder changes kept and lost${FULL ? '' : ' (sampled)'}`);
  expect(res.failures).toEqual([]);
  if (o.sameState) expect(res.after).toBe(res.before);
  else expect(res.after).not.toBe(res.before);
}

it('a crash at any point of writing, rewriting (str_replace) or deleting a memory leaves the old or the new state', async () => {
  await crashTest('create a file', small, async (v) => void (await v.memory.writeFile('/memories/new.md', 'new', { mode: 'create', source: 'user' })));
  await crashTest('str_replace (writeFile)', small, async (v) => void (await v.memory.writeFile('/memories/a.md', 'alpha three', { mode: 'update', source: 'claude' })));
  await crashTest('delete', small, async (v) => void (await v.memory.remove('/memories/d', 'user')));
  await crashTest('rename', small, async (v) => void (await v.memory.rename('/memories/d', '/memories/e', 'user')));
}, T);

it('a crash at any point of a checkpoint with compaction (packs written, own segments and checkpoints removed) loses nothing', async () => {
  // The checkpoint at close packs the live blobs of closed segments and removes those both kept checkpoints cover.
  const sim = new SimFs(dirs.run, ckBase.image);
  await restoreDevice(ckBase);
  const v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state, journalLimit: 1, ...V2 });
  await v.unlockWithRecoveryKey(ckBase.keys.recoveryKey);
  await v.close();
  const before = deviceFiles(ckBase.image);
  const after = deviceFiles(sim.image('lost'));
  expect(after.filter((f) => /\/c-/.test(f))).toHaveLength(2);
  expect(after.some((f) => /\/p-/.test(f))).toBe(true);
  expect(before.filter((f) => !after.includes(f)).length).toBeGreaterThan(0);
  await crashTest(
    'checkpoint and compaction at close',
    ckBase,
    async (v) => {
      const d = await dump(v);
      await v.close();
      return d;
    },
    { sameState: true, journalLimit: 1, sample: 16 },
  );
  // The base's own records pass the limit: this write checkpoints (and compacts) first.
  await crashTest('a write that checkpoints first', ckBase, async (v) => void (await v.memory.writeFile('/memories/a.md', 'alpha checkpointed', { mode: 'update', source: 'user' })), { journalLimit: 1, sample: 16 });
}, T);

it('a crash at any point of emptying the trash leaves the deleted versions all kept or all gone', async () => {
  await crashTest('empty the trash', small, async (v) => void (await v.emptyTrash()), { sample: 12 });
}, T);

it('a crash at any point of the upgrade of a v1 vault by its first write leaves the v1 state or the written one', async () => {
  await crashTest('upgrade on first write', v1Base, async (v) => void (await v.memory.writeFile('/memories/up.md', 'first v2 write', { mode: 'create', source: 'user' })), { sample: 16 });
}, T);

it('a crash at any point of a key rotation (format 2: keys file, checkpoint of the new epoch, vault.json, the old files closed) leaves the old keys or the new ones opening the same memories', async () => {
  await crashTest('key rotation', small, async (v) => void (await v.rotateKeys(PASS)), { sample: 12, sameState: true });
  // Packs and checkpoints of the old epoch: every blob sealed again, the old files removed at the end.
  await crashTest('key rotation after compaction', ckBase, async (v) => void (await v.rotateKeys(PASS)), { sample: 12, sameState: true, journalLimit: 3 });
}, T);
