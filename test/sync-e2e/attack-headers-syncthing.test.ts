/**
 * vault.json across computers through real Syncthing on loopback (the attacks of test/unit/sync/attack-headers.test.ts
 * end to end): two computers change the passphrase while apart; Syncthing keeps one as vault.json and the other as its
 * `vault.sync-conflict-….json`; both computers settle to the same header, the copy goes on both, and only the winning
 * passphrase opens the vault on either. Then the same with keys rotated on both apart (core sync/rivals.ts): both go on
 * under the winning epoch with every write kept.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHeader } from '../../electron/core/vault/header';
import { byRank, mainCopy } from '../../electron/core/vault/sync/header-copies';
import { Vault } from '../../electron/core/vault/vault';
import { FLOOR, PASS } from '../unit/sync/two-computers';
import { Syncthing } from './syncthing';

describe('passphrases changed on two computers apart, carried by Syncthing', () => {
  let pair: Syncthing;
  beforeAll(async () => {
    // Fails (never skips) where syncthing is missing, saying to install it.
    pair = await Syncthing.start();
  }, 90_000);
  afterAll(async () => {
    await pair?.stop();
  }, 60_000);

  it('settle to one header on both sides: the conflict copy is gone everywhere and only the winner opens', async () => {
    const state = (n: string) => path.join(pair.root, `state-${n}`);
    const opts = (n: string) => ({ stateDir: state(n), format2: true, ackDelayMs: 0, releaseWhenLocked: true });
    const made = await Vault.create(pair.a.folder, PASS, { kdf: FLOOR, ...opts('a') });
    await made.vault.memory.writeFile('/memories/a.md', 'from a', { mode: 'create', source: 'user' });
    await made.vault.close();
    await pair.settled();
    const va = await Vault.open(pair.a.folder, opts('a'));
    const vb = await Vault.open(pair.b.folder, opts('b'));
    try {
      await va.unlock(PASS);
      await vb.unlock(PASS);
      await vb.memory.writeFile('/memories/b.md', 'from b', { mode: 'create', source: 'user' });
      await pair.settled();
      await va.ingest();
      // Apart, each changes the passphrase.
      await pair.rest(pair.a, `/rest/system/pause?device=${pair.b.id}`, 'POST');
      await pair.rest(pair.b, `/rest/system/pause?device=${pair.a.id}`, 'POST');
      await va.changePassphrase(PASS, 'passphrase set on a');
      await vb.changePassphrase(PASS, 'passphrase set on b');
      const ha = await fs.readFile(path.join(pair.a.folder, 'vault.json'));
      const hb = await fs.readFile(path.join(pair.b.folder, 'vault.json'));
      expect(parseHeader(ha, 2).counter).toBe(parseHeader(hb, 2).counter);
      const aWins = byRank(mainCopy(parseHeader(ha, 2), ha), mainCopy(parseHeader(hb, 2), hb)) < 0;
      for (const i of [pair.a, pair.b]) await pair.rest(i, `/rest/db/scan?folder=mnemo`, 'POST');
      await pair.rest(pair.a, `/rest/system/resume?device=${pair.b.id}`, 'POST');
      await pair.rest(pair.b, `/rest/system/resume?device=${pair.a.id}`, 'POST');
      const copies = async (dir: string) => (await fs.readdir(dir)).filter((n) => n.endsWith('.json') && n !== 'vault.json');
      await pair.until('the conflict copy of vault.json on both sides', async () => (await copies(pair.a.folder)).length > 0 && (await copies(pair.b.folder)).length > 0, 60_000);
      await pair.settled();
      expect((await copies(pair.a.folder))[0]).toMatch(/^vault\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}\.json$/);
      await va.ingest();
      await vb.ingest();
      await pair.settled();
      await va.ingest();
      await vb.ingest();
      for (const dir of [pair.a.folder, pair.b.folder]) {
        expect(await copies(dir)).toEqual([]);
        expect(await fs.readFile(path.join(dir, 'vault.json'))).toEqual(aWins ? ha : hb);
      }
      const [win, lose] = aWins ? ['passphrase set on a', 'passphrase set on b'] : ['passphrase set on b', 'passphrase set on a'];
      for (const v of [va, vb]) {
        v.lock();
        for (const p of [PASS, lose]) await expect(v.unlock(p)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
        await v.unlock(win);
        expect(await v.memory.readFile('/memories/a.md')).toBe('from a');
        expect(await v.memory.readFile('/memories/b.md')).toBe('from b');
        expect(await v.verify()).toEqual({ ok: true, problems: [] });
      }
    } finally {
      await va.close();
      await vb.close();
    }
  }, 240_000);

  it('keys rotated on both computers apart: after Syncthing both go on under one epoch, every write kept, the rival header and the old files gone', async () => {
    // A vault of its own in a folder inside the shared one.
    const [da, db] = [path.join(pair.a.folder, 'rotated'), path.join(pair.b.folder, 'rotated')];
    const state = (n: string) => path.join(pair.root, `state-rot-${n}`);
    const opts = (n: string) => ({ stateDir: state(n), format2: true, ackDelayMs: 0, releaseWhenLocked: true });
    const made = await Vault.create(da, PASS, { kdf: FLOOR, ...opts('a') });
    await made.vault.memory.writeFile('/memories/a1.md', 'a1', { mode: 'create', source: 'user' });
    await made.vault.close();
    await pair.settled();
    const va = await Vault.open(da, opts('a'));
    const vb = await Vault.open(db, opts('b'));
    const read = (v: Vault, n: string) => v.memory.readFile(`/memories/${n}.md`);
    try {
      await va.unlock(PASS);
      await vb.unlock(PASS);
      await vb.memory.writeFile('/memories/b1.md', 'b1', { mode: 'create', source: 'user' });
      await pair.settled();
      await va.ingest();
      // Apart, each rotates the keys and writes under its new ones.
      await pair.rest(pair.a, `/rest/system/pause?device=${pair.b.id}`, 'POST');
      await pair.rest(pair.b, `/rest/system/pause?device=${pair.a.id}`, 'POST');
      await va.rotateKeys(PASS);
      await vb.rotateKeys(PASS);
      await va.memory.writeFile('/memories/a2.md', 'a2', { mode: 'create', source: 'user' });
      await vb.memory.writeFile('/memories/b2.md', 'b2', { mode: 'create', source: 'user' });
      for (const i of [pair.a, pair.b]) await pair.rest(i, `/rest/db/scan?folder=mnemo`, 'POST');
      await pair.rest(pair.a, `/rest/system/resume?device=${pair.b.id}`, 'POST');
      await pair.rest(pair.b, `/rest/system/resume?device=${pair.a.id}`, 'POST');
      const copies = async (dir: string) => (await fs.readdir(dir)).filter((n) => n.endsWith('.json') && n !== 'vault.json');
      await pair.until('the conflict copy of vault.json on both sides', async () => (await copies(da)).length > 0 && (await copies(db)).length > 0, 60_000);
      await pair.settled();
      // The computer whose header lost locks at its next read; each then unlocks again with the same passphrase.
      for (const v of [va, vb]) await v.ingest().catch(() => undefined);
      for (let round = 0; round < 3; round++) {
        for (const v of [va, vb]) {
          v.lock();
          await v.unlock(PASS);
        }
        await pair.settled();
      }
      for (const v of [va, vb]) {
        for (const n of ['a1', 'b1', 'a2', 'b2']) expect(await read(v, n)).toBe(n);
        expect(await v.verify()).toEqual({ ok: true, problems: [] });
      }
      expect(JSON.parse(await fs.readFile(path.join(da, 'vault.json'), 'utf8')).manifest).toBe(JSON.parse(await fs.readFile(path.join(db, 'vault.json'), 'utf8')).manifest);
      const epoch = (JSON.parse(await fs.readFile(path.join(da, 'vault.json'), 'utf8')) as { manifest: string }).manifest.slice(0, 8);
      for (const dir of [da, db]) {
        expect(await copies(dir)).toEqual([]);
        // Only the winning epoch's folders hold files.
        for (const dev of await fs.readdir(path.join(dir, 'devices'))) {
          for (const ep of await fs.readdir(path.join(dir, 'devices', dev))) {
            if (ep !== epoch) expect(await fs.readdir(path.join(dir, 'devices', dev, ep))).toEqual([]);
          }
        }
      }
      // Written after it, on either: reaches the other.
      await va.memory.writeFile('/memories/a3.md', 'a3', { mode: 'create', source: 'user' });
      await pair.settled();
      await vb.ingest();
      expect(await read(vb, 'a3')).toBe('a3');
    } finally {
      await va.close();
      await vb.close();
    }
  }, 300_000);
});
