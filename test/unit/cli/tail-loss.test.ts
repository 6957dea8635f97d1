import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { initVault, memoryLines, mnemo } from './helpers';

it('mnemo verify exits 4 when the manifest was deleted together with the newest journal, even on a device that never saw them', async () => {
  // Format 1: its manifest and journal segment are what is deleted (format 2 keeps per-device journals and checkpoints).
  const { vault, env } = await initVault({ MNEMO_FORMAT: '1' });
  await mnemo(['memory', '--vault', vault], { env, stdin: memoryLines({ command: 'create', path: '/memories/old.md', file_text: 'checkpointed' }) });
  await mnemo(['memory', '--vault', vault], { env, stdin: memoryLines({ command: 'create', path: '/memories/new.md', file_text: 'the newest change' }) });
  const manifest = (await fs.readdir(vault)).find((f) => /^manifest\.[0-9a-f]+$/.test(f))!;
  const segs = path.join(vault, 'segments');
  const byAge = await Promise.all((await fs.readdir(segs)).map(async (s) => ({ s, at: (await fs.stat(path.join(segs, s))).mtimeMs })));
  const journal = byAge.sort((a, b) => b.at - a.at)[0]!.s;
  await fs.rm(path.join(vault, manifest));
  await fs.rm(path.join(segs, journal));
  // A device that never saw the newest change: only the vault itself can tell.
  const res = await mnemo(['verify', '--vault', vault], { env: { ...env, XDG_STATE_HOME: path.join(path.dirname(vault), 'other-device') } });
  expect(res.code).toBe(4);
  expect(res.stderr).toMatch(/manifest/);
});
