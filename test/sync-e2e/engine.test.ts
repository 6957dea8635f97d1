/**
 * What the sync engine our users run actually does to a folder, checked against real Syncthing on loopback:
 * files written on either side arrive on the other, and the same file changed on both sides while they were
 * apart comes out as the winner plus a `*.sync-conflict-*` copy. The sync simulator (test/unit/sync) imitates
 * these behaviours; this keeps it honest about the real engine's names.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Syncthing, listing } from './syncthing';

describe('Syncthing on loopback carries a folder between two devices', () => {
  let pair: Syncthing;
  beforeAll(async () => {
    // Fails (never skips) where syncthing is missing, saying to install it.
    pair = await Syncthing.start();
  }, 90_000);
  afterAll(async () => {
    await pair?.stop();
  }, 60_000);

  it('delivers what each side writes, and keeps both sides of a file changed on each while apart as a sync-conflict copy', async () => {
    await fs.writeFile(path.join(pair.a.folder, 'from-a.txt'), 'written on a\n');
    await fs.mkdir(path.join(pair.b.folder, 'sub'));
    await fs.writeFile(path.join(pair.b.folder, 'sub', 'from-b.txt'), 'written on b\n');
    await pair.settled();
    expect(await fs.readFile(path.join(pair.b.folder, 'from-a.txt'), 'utf8')).toBe('written on a\n');
    expect(await fs.readFile(path.join(pair.a.folder, 'sub', 'from-b.txt'), 'utf8')).toBe('written on b\n');

    // Apart: each pauses the other, both change one file, then they meet again.
    await pair.rest(pair.a, `/rest/system/pause?device=${pair.b.id}`, 'POST');
    await pair.rest(pair.b, `/rest/system/pause?device=${pair.a.id}`, 'POST');
    await fs.writeFile(path.join(pair.a.folder, 'from-a.txt'), 'changed on a\n');
    await fs.writeFile(path.join(pair.b.folder, 'from-a.txt'), 'changed on b, longer\n');
    for (const i of [pair.a, pair.b]) await pair.rest(i, `/rest/db/scan?folder=mnemo`, 'POST');
    await pair.rest(pair.a, `/rest/system/resume?device=${pair.b.id}`, 'POST');
    await pair.rest(pair.b, `/rest/system/resume?device=${pair.a.id}`, 'POST');
    await pair.until('a conflict copy exists on both sides', async () => (await listing(pair.a.folder)).some((f) => f.includes('.sync-conflict-')) && (await listing(pair.b.folder)).some((f) => f.includes('.sync-conflict-')), 60_000);
    await pair.settled();
    const names = (await listing(pair.a.folder)).map((l) => l.split(' ')[0]!);
    expect(names).toEqual(await listing(pair.b.folder).then((l) => l.map((x) => x.split(' ')[0]!)));
    const copy = names.find((n) => n.includes('.sync-conflict-'))!;
    // Syncthing's conflict name: <base>.sync-conflict-<yyyymmdd>-<hhmmss>-<7 characters of the losing device><ext>.
    expect(copy).toMatch(/^from-a\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}\.txt$/);
    const texts = [await fs.readFile(path.join(pair.a.folder, 'from-a.txt'), 'utf8'), await fs.readFile(path.join(pair.a.folder, copy), 'utf8')].sort();
    expect(texts).toEqual(['changed on a\n', 'changed on b, longer\n']);
  }, 180_000);
});
