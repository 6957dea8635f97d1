/**
 * Random runs on a synced v1 vault: A updated Mnemo (its first change
 * upgrades the vault), B keeps the old build, writing the v1 layout, until
 * A's vault.json reaches it; then B updates. Writes, settings saves and the
 * two kinds of carrying (B's v1 files to A, A's device folder to B) come in
 * random order, deletes too. At the end, on both computers: verify passes, settings read,
 * and each computer's last text of each file is shown, in the history, in
 * the trash or in a conflict. Sampled seeds in `npm test`; many under MNEMO_DEEP=1.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import { Vault } from '../../../electron/core/vault/vault';
import { said, turn } from './turns';
import { DEEP, prng, randomSeed } from '../../deep';
import { carry, FLOOR, PASS } from './two-computers';

let root: string;
let a: string;
let b: string;
let recoveryKey: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-upgrade-fuzz-'));
  a = path.join(root, 'va');
  b = path.join(root, 'vb');
  const made = await Vault.create(a, PASS, { kdf: FLOOR, stateDir: path.join(root, 'sa'), format2: false, journalLimit: 3 });
  recoveryKey = made.recoveryKey;
  for (let i = 0; i < FILES; i++) await made.vault.memory.writeFile(`/memories/f${i}.md`, `v1 ${i}`, { mode: 'create', source: 'user' });
  await made.vault.internal.putJSON('settings', { n: 0 });
  const now = Date.now();
  await new Conversations(made.vault).save({ id: CHAT, title: 'Shared', created: now, updated: now, messages: [], transcript: [] });
  await new Conversations(made.vault).update(CHAT, turn('v1 turn'));
  await made.vault.close();
  await fs.cp(a, b, { recursive: true });
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const FILES = 3;
const CHAT = '00000000000000c1';

async function withVault<T>(dir: string, state: string, format2: boolean, fn: (v: Vault) => Promise<T>): Promise<T> {
  const v = await Vault.open(dir, { stateDir: path.join(root, state), format2, ackDelayMs: 0, journalLimit: 3 });
  try {
    await v.unlockWithRecoveryKey(recoveryKey);
    return await fn(v);
  } finally {
    await v.close();
  }
}

/** B's v1 files (all but vault.json and devices/) made the same in A, as a sync engine would. */
async function mirrorV1(from: string, to: string): Promise<void> {
  const list = async (d: string) => ((await fs.readdir(d, { recursive: true })) as string[]).filter((r) => r !== 'vault.json' && !r.startsWith('devices') && !r.includes('lock'));
  const src = await list(from);
  for (const rel of src) {
    const p = path.join(from, rel);
    if (!(await fs.stat(p)).isFile()) continue;
    await fs.mkdir(path.dirname(path.join(to, rel)), { recursive: true });
    await fs.copyFile(p, path.join(to, rel));
  }
  for (const rel of await list(to)) if ((await fs.stat(path.join(to, rel))).isFile() && !src.includes(rel)) await fs.rm(path.join(to, rel));
}

/** Devices folders A has that B lacks (not vault.json: the upgrade has not reached B yet). */
async function carryDevices(from: string, to: string): Promise<void> {
  const h = await fs.readFile(path.join(to, 'vault.json'));
  await carry(from, to);
  await fs.writeFile(path.join(to, 'vault.json'), h);
}

async function run(seed: number): Promise<void> {
  const rand = prng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const last = { A: new Map<string, string>(), B: new Map<string, string>() };
  const turns = ['v1 turn'];
  let n = 0;
  for (let step = 0; step < 10; step++) {
    const f = `/memories/f${pick(FILES)}.md`;
    const text = `${step} ${++n}`;
    switch (pick(9)) {
      case 7:
        await withVault(a, 'sa', true, (v) => v.memory.remove(f, 'user')).catch(() => undefined);
        break;
      case 8:
        await withVault(b, 'sb', false, (v) => v.memory.remove(f, 'user')).catch(() => undefined);
        break;
      case 5:
        await withVault(a, 'sa', true, (v) => new Conversations(v).update(CHAT, turn(`A ${text}`)));
        turns.push(`A ${text}`);
        break;
      case 6:
        await withVault(b, 'sb', false, (v) => new Conversations(v).update(CHAT, turn(`B ${text}`)));
        turns.push(`B ${text}`);
        break;
      case 0:
        await withVault(a, 'sa', true, (v) => v.memory.writeFile(f, `A ${text}`, { mode: 'upsert', source: 'user' }));
        last.A.set(f, `A ${text}`);
        break;
      case 1:
        await withVault(b, 'sb', false, (v) => v.memory.writeFile(f, `B ${text}`, { mode: 'upsert', source: 'user' }));
        last.B.set(f, `B ${text}`);
        break;
      case 2:
        await withVault(b, 'sb', false, (v) => v.internal.putJSON('settings', { n, by: 'B' }));
        await withVault(a, 'sa', true, (v) => v.internal.putJSON('settings', { n, by: 'A' }));
        break;
      case 3:
        await mirrorV1(b, a);
        break;
      case 4:
        await carryDevices(a, b);
        break;
    }
  }
  // The upgrade reaches B; B updates and both carry everything.
  await mirrorV1(b, a);
  await carry(a, b);
  await fs.copyFile(path.join(a, 'vault.json'), path.join(b, 'vault.json'));
  await expect(withVault(b, 'sb', false, async () => undefined)).rejects.toThrow(/Update Mnemo/);
  await withVault(b, 'sb', true, (v) => v.memory.writeFile('/memories/b-updated.md', 'B updated', { mode: 'create', source: 'user' }));
  await carry(b, a);
  await carry(a, b);
  for (const [dir, st] of [[a, 'sa'], [b, 'sb']] as const) {
    await withVault(dir, st, true, async (v) => {
      expect(await v.verify(), `${dir} seed ${seed}`).toEqual({ ok: true, problems: [] });
      expect(await v.internal.getJSON('settings')).toBeDefined();
      expect(new Set(said(await new Conversations(v).get(CHAT))), `seed ${seed}: the turns on ${dir === a ? 'A' : 'B'}`).toEqual(new Set(turns));
      for (const who of ['A', 'B'] as const) {
        for (const [f, t] of last[who]) {
          const live = v.memory.list('/memories', Infinity).some((e) => e.path === f);
          const trashed = v.trash().find((t) => t.path === f)?.versions.map((x) => x.version) ?? [];
          const kept = [
            ...(live ? [await v.memory.readFile(f), ...(await Promise.all(v.history(f).map((h) => v.readVersion(f, h.version))))] : []),
            ...(await Promise.all(trashed.map((x) => v.readVersion(f, x)))),
            ...v.conflicts().map((c) => JSON.stringify(c)),
          ];
          expect(kept.join('\n'), `seed ${seed}: ${who}'s last text of ${f} on ${dir === a ? 'A' : 'B'}`).toContain(t);
        }
      }
    });
  }
}

const seeds = DEEP ? Array.from({ length: 40 }, (_, i) => i + 1) : [1, randomSeed('attack-upgrade-fuzz')];
for (const seed of seeds) {
  it(`random writes on a synced v1 vault, A on the new build and B on the old one till the upgrade reaches it (seed ${seed})`, async () => {
    await run(seed);
  }, 120_000);
}
