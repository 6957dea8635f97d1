/** This device's identity for a vault, kept in the state folder (docs/sync-design.md §2.1). */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { cryptoReady } from '../../../electron/core/vault/crypto';
import { nodeFs, type VaultFs } from '../../../electron/core/vault/fsio';
import { deviceFile, ensureDevice, loadDevice } from '../../../electron/core/vault/sync/device';

const VAULT = '0123456789abcdef0123456789abcdef';
let root: string;
beforeAll(cryptoReady);
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-device-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

it('mints an id once, durably, and loads the same one afterwards', async () => {
  const synced: string[] = [];
  const fsx: VaultFs = { ...nodeFs, syncDir: async (d) => (synced.push(d), nodeFs.syncDir(d)) };
  const stateDir = path.join(root, 'state', 'mnemo');
  const first = await ensureDevice(stateDir, VAULT, fsx, () => 1234);
  expect(first.minted).toBe(true);
  expect(first.device).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), created: 1234 });
  // The record's folder entry and the record itself were synced before the id was handed out.
  expect(synced).toEqual([path.join(root, 'state'), stateDir]);
  expect(JSON.parse(await fs.readFile(deviceFile(stateDir, VAULT), 'utf8'))).toEqual(first.device);
  const again = await ensureDevice(stateDir, VAULT);
  expect(again).toEqual({ device: first.device, minted: false });
  expect(await loadDevice(stateDir, VAULT)).toEqual(first.device);
});

it('two state folders are two devices', async () => {
  const a = await ensureDevice(path.join(root, 'a'), VAULT);
  const b = await ensureDevice(path.join(root, 'b'), VAULT);
  expect(a.device.id).not.toBe(b.device.id);
});

it('replaces an unreadable record with a fresh id, and never takes a vault id that is not one', async () => {
  await fs.writeFile(path.join(root, `${VAULT}.device`), '{"id":"not hex","created":1}');
  expect(await loadDevice(root, VAULT)).toBeUndefined();
  const { device, minted } = await ensureDevice(root, VAULT);
  expect(minted).toBe(true);
  expect(device.id).toMatch(/^[0-9a-f]{32}$/);
  expect(() => deviceFile(root, '../../etc/passwd')).toThrow();
});

it('says what failed, without the host path or the OS text, when the record cannot be read', async () => {
  const fsx: VaultFs = { ...nodeFs, readFile: async () => Promise.reject(Object.assign(new Error(`EIO: ${root}`), { code: 'EIO' })) };
  const err = await ensureDevice(root, VAULT, fsx).catch((e: Error) => e);
  expect(err).toMatchObject({ code: 'IO' });
  expect((err as Error).message).not.toContain(root);
  expect(await fs.readdir(root)).toEqual([]);
});
