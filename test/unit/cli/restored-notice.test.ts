/**
 * Format 2: a vault folder put back from an older copy is said by the CLI too, on its standard error, at the command
 * that finds it (the window says it in its notice banner). Before, the CLI said nothing and went on.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { initVault, memoryLines, mnemo } from './helpers';

it('mnemo says, at the command that finds it, that this computer’s own files in the vault are older, and goes on', async () => {
  const { root, vault, env } = await initVault();
  const write = (p: string, text: string) => mnemo(['memory', '--vault', vault], { env, stdin: memoryLines({ command: 'create', path: p, file_text: text }) });
  expect((await write('/memories/old.md', 'old')).code).toBe(0);
  const copy = path.join(root, 'older-copy');
  await fs.cp(vault, copy, { recursive: true });
  expect((await write('/memories/new.md', 'new')).code).toBe(0);
  await fs.rm(vault, { recursive: true });
  await fs.cp(copy, vault, { recursive: true });

  const ls = await mnemo(['ls', '--vault', vault], { env });
  expect(ls.code).toBe(0);
  expect(ls.stderr).toMatch(/own files in the vault are older than what it wrote before/);
  expect(ls.stdout).toContain('/memories/old.md');
  // Said once: the next command goes on quietly, and writes are kept.
  expect((await write('/memories/after.md', 'after')).code).toBe(0);
  const again = await mnemo(['cat', '/memories/after.md', '--vault', vault], { env });
  expect(again.stdout).toBe('after');
  expect(again.stderr).not.toMatch(/older/);
});
