/**
 * `mnemo devices`: the computers of a synced vault listed, renamed and forgotten from the terminal, run as the real
 * bundle on two copies of one vault folder (two state folders: two computers), carried as a sync engine would.
 */
import fs from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { carry } from '../sync/two-computers';
import os from 'node:os';
import { initVault, memoryLines, mnemo, twoCliComputers } from './helpers';

let one: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  // Format 1: a vault only this computer writes (format 2 lists this computer itself, once it has written).
  one = await initVault({ MNEMO_FORMAT: '1' });
});
afterAll(async () => {
  await fs.rm(one.root, { recursive: true, force: true });
});

const host = (os.hostname().trim() || 'computer').slice(0, 64);
const LINE = /^([0-9a-f]{32})\t([^\t]+)\t(\d{4}-\d\d-\d\dT[\d:.]+Z)\t([a-z,-]+)$/;

it('a vault only this computer writes lists none and says so; bad arguments are usage errors', async () => {
  const run = (args: string[]) => mnemo([...args, '--vault', one.vault], { env: one.env });
  expect(await run(['devices'])).toMatchObject({ code: 0, stdout: '', stderr: 'Only this computer writes to this vault.\n' });
  expect(await run(['devices', 'rename', 'x'])).toMatchObject({ code: 2, stderr: expect.stringContaining('devices takes nothing') });
  expect(await run(['devices', 'forget', '0'.repeat(32)])).toMatchObject({ code: 2, stderr: expect.stringContaining('needs --yes') });
  expect(await run(['devices', 'rename', '0'.repeat(32), 'Desk'])).toMatchObject({ code: 1, stderr: expect.stringContaining('only') });
});

it('two computers on a synced vault: each listed with its id, name, last write and marks; renamed and forgotten from either', async () => {
  // Computer A makes the vault in format 2; B starts from a copy of its folder with its own state folder.
  const { a, b, on } = await twoCliComputers(one);
  const sync = async () => {
    await carry(a.vault, b.vault);
    await carry(b.vault, a.vault);
  };
  for (const [c, name] of [[a, 'a'], [b, 'b']] as const) {
    expect((await on(c)(['memory'], memoryLines({ command: 'create', path: `/memories/${name}.md`, file_text: `${name}\n` }))).code).toBe(0);
    await sync();
  }
  // Each sees the other (and names itself once it does).
  for (const c of [a, b]) expect((await on(c)(['devices'])).code).toBe(0);
  await sync();
  const list = async (c: typeof a) => (await on(c)(['devices'])).stdout.trim().split('\n').map((l) => LINE.exec(l)!.slice(1));
  const fromA = await list(a);
  expect(fromA).toHaveLength(2);
  const me = fromA.find((d) => d[3]!.split(',').includes('this'))!;
  const other = fromA.find((d) => d !== me)!;
  expect((await list(b)).find((d) => d[3]!.includes('this'))![0]).toBe(other[0]);

  expect(await on(b)(['devices', 'rename', me[0]!, '  Desk\tat home '])).toMatchObject({ code: 0, stderr: 'Renamed the computer to "Desk at home".\n' });
  await sync();
  expect((await list(a)).find((d) => d[0] === me[0])![1]).toBe('Desk at home');

  // `history` says which computer wrote each version, by the name it was given.
  expect((await on(b)(['memory'], memoryLines({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'a, edited on b' }))).code).toBe(0);
  await sync();
  const lines = (await on(a)(['history', '/memories/a.md'])).stdout.trim().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(new RegExp(`^2\t\\d{4}-[^\t]+Z\tcli\t${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  expect(lines[1]).toMatch(/^1\t\d{4}-[^\t]+Z\tcli\tDesk at home$/);
  expect((await on(a)(['cat', '/memories/a.md', '--version', '1'])).stdout).toBe('a\n');

  expect(await on(a)(['devices', 'forget', me[0]!, '--yes'])).toMatchObject({ code: 1, stderr: expect.stringContaining('This is the computer you are using') });
  expect(await on(a)(['devices', 'forget', other[0]!, '--yes'])).toMatchObject({ code: 0, stderr: expect.stringContaining('Forgot the computer') });
  expect((await list(a)).find((d) => d[0] === other[0])![3]).toContain('forgotten');
}, 60_000);
