/**
 * A vault made in format 2 is format 2 on disk at once (vault.ts `create`): a second computer opens it while the first
 * is still open, before either changed anything, and both write.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { carry, FLOOR, PASS } from './two-computers';

let root = '';
const opened: Vault[] = [];
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-new-two-'));
});
afterEach(async () => {
  for (const v of opened.splice(0)) await v.close().catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

it('a new vault is format 2 on disk at once: another computer opens it while the first is still open and unchanged, and both write', async () => {
  const a = path.join(root, 'va');
  const b = path.join(root, 'vb');
  // (The app's confirmation delay: what creation wrote is confirmed at once all the same.)
  const made = await Vault.create(a, PASS, { kdf: FLOOR, stateDir: path.join(root, 'sa'), format2: true });
  opened.push(made.vault);
  expect(JSON.parse(await fs.readFile(path.join(a, 'vault.json'), 'utf8')).version).toBe(2);
  // The sync engine copies the whole folder, lock files and all, while A is open; A is another computer.
  await fs.cp(a, b, { recursive: true });
  const record = path.join(b, '.lock');
  if (await fs.stat(record).catch(() => undefined)) await fs.writeFile(record, JSON.stringify({ ...JSON.parse(await fs.readFile(record, 'utf8')), host: 'desktop-elsewhere' }));
  const vb = await Vault.open(b, { stateDir: path.join(root, 'sb'), format2: true, ackDelayMs: 0 });
  opened.push(vb);
  await vb.unlock(PASS);
  // B knows A at once (A's creation records are confirmed), so B said it was there too.
  const idA = await made.vault.internal.device!(false);
  expect((await vb.devices()).map((d) => d.id)).toContain(idA);
  await vb.memory.writeFile('/memories/from-b.md', 'b', { mode: 'create', source: 'user' });
  await made.vault.memory.writeFile('/memories/from-a.md', 'a', { mode: 'create', source: 'user' });
  // Confirmed (an ingest confirms this computer's last changes first), then carried.
  await made.vault.ingest();
  await carry(a, b);
  await carry(b, a);
  for (const v of [made.vault, vb]) {
    await v.ingest();
    expect(await v.memory.readFile('/memories/from-a.md')).toBe('a');
    expect(await v.memory.readFile('/memories/from-b.md')).toBe('b');
    expect(await v.verify()).toMatchObject({ ok: true });
  }
});
