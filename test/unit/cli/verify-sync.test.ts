/**
 * `mnemo verify` on a vault another computer writes (format 2): a file the sync engine has brought only in part is
 * said as waiting for sync, apart from damage, and is not a failure.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { carry } from '../sync/two-computers';
import { initVault, memoryLines, mnemo, twoCliComputers } from './helpers';

let one: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  one = await initVault();
});
afterAll(async () => {
  await fs.rm(one.root, { recursive: true, force: true });
});

it('--wait takes seconds from 0 to 3600', async () => {
  expect(await mnemo(['verify', '--wait', '-1', '--vault', one.vault], { env: one.env })).toMatchObject({ code: 2 });
  for (const bad of ['x', '1.5', '3601', '01']) expect(await mnemo(['verify', '--wait', bad, '--vault', one.vault], { env: one.env })).toMatchObject({ code: 2, stderr: expect.stringContaining('--wait takes a number of seconds') });
  expect(await mnemo(['verify', '--wait', '5', '--vault', one.vault], { env: one.env })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ok: /) });
});

it('a journal half arrived from another computer is said as waiting, not damage (exit 0); --wait waits for the rest or says it gave up', async () => {
  // Computer A makes the vault in format 2; B starts from a copy of its folder with its own state folder.
  const { a, b, on } = await twoCliComputers(one);
  expect((await on(a)(['memory'], memoryLines({ command: 'create', path: '/memories/a.md', file_text: 'a\n' }))).code).toBe(0);
  await carry(a.vault, b.vault);
  expect((await on(b)(['memory'], memoryLines({ command: 'create', path: '/memories/b.md', file_text: 'b\n' }))).code).toBe(0);
  await carry(b.vault, a.vault);
  expect(await on(a)(['verify'])).toMatchObject({ code: 0, stdout: expect.not.stringContaining('waiting') });
  // B writes again; only the first part of its journal's new bytes reaches A.
  expect((await on(b)(['memory'], memoryLines({ command: 'create', path: '/memories/b2.md', file_text: 'b2 '.repeat(50) + '\n' }))).code).toBe(0);
  const bDevs = new Set(await fs.readdir(path.join(b.vault, 'devices')));
  const aOwn = (await fs.readdir(path.join(a.vault, 'devices'))).filter((d) => bDevs.has(d));
  let cut = 0;
  for (const dev of aOwn) {
    for (const rel of (await fs.readdir(path.join(b.vault, 'devices', dev), { recursive: true })) as string[]) {
      if (!/(^|\/)j-[0-9a-f]+-[0-9a-f]+$/.test(rel)) continue;
      const src = await fs.readFile(path.join(b.vault, 'devices', dev, rel));
      const dst = await fs.readFile(path.join(a.vault, 'devices', dev, rel)).catch(() => Buffer.alloc(0));
      if (src.length <= dst.length) continue;
      // Half of what is new: the last record torn.
      await fs.mkdir(path.dirname(path.join(a.vault, 'devices', dev, rel)), { recursive: true });
      await fs.writeFile(path.join(a.vault, 'devices', dev, rel), src.subarray(0, dst.length + Math.floor((src.length - dst.length) / 2)));
      cut++;
    }
  }
  expect(cut).toBe(1);
  const waiting = await on(a)(['verify']);
  expect(waiting).toMatchObject({ code: 0 });
  expect(waiting.stdout).toMatch(/^waiting for 1 file from device [0-9a-f]{8}…: .+ still arriving$/m);
  expect(waiting.stdout).toMatch(/^ok: /m);
  // --wait: still torn after the time given is exit 1, said; the rest arriving meanwhile is a plain ok.
  const gaveUp = await on(a)(['verify', '--wait', '1']);
  expect(gaveUp).toMatchObject({ code: 1, stderr: expect.stringContaining('still waiting for files from other computers after 1 s') });
  expect(gaveUp.stdout).toMatch(/^waiting for 1 file from device /m);
  const later = on(a)(['verify', '--wait', '60']);
  await new Promise((r) => setTimeout(r, 1500));
  // Once the rest arrives: nothing is waiting, and the memory is there.
  await carry(b.vault, a.vault);
  expect(await later).toMatchObject({ code: 0, stdout: expect.not.stringContaining('waiting') });
  expect(await on(a)(['verify'])).toMatchObject({ code: 0, stdout: expect.not.stringContaining('waiting') });
  expect((await on(a)(['cat', '/memories/b2.md'])).stdout).toContain('b2 b2');
});
