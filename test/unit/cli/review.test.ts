/**
 * `mnemo review`: what a script (through `mnemo memory`) or Claude changed
 * since it was last reviewed, listed and marked from the terminal, run as the
 * real bundle.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { memoryLines, mnemo, vaultForFile } from './helpers';

const { v: vault, run } = vaultForFile();

it('lists each change since the last review with its kind and who made it, one a line, and marks one or all of them', async () => {
  expect(await run(['review'])).toMatchObject({ code: 0, stdout: '' });
  const wrote = await run(
    ['memory'],
    memoryLines(
      { command: 'create', path: '/memories/a.md', file_text: 'a\n' },
      { command: 'create', path: '/memories/b.md', file_text: 'b\n' },
      { command: 'create', path: '/memories/gone.md', file_text: 'soon gone\n' },
    ),
  );
  expect(wrote.code).toBe(0);
  expect(await run(['review'])).toMatchObject({ code: 0, stdout: '/memories/a.md\tnew\tcli\n/memories/b.md\tnew\tcli\n/memories/gone.md\tnew\tcli\n' });
  expect(await run(['review', '--mark', '/memories/a.md'])).toMatchObject({ code: 0, stderr: expect.stringMatching(/Marked \/memories\/a\.md reviewed/) });
  await run(['memory'], memoryLines({ command: 'str_replace', path: '/memories/b.md', old_str: 'b', new_str: 'B' }, { command: 'delete', path: '/memories/gone.md' }, { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/c.md' }));
  expect((await run(['review'])).stdout).toBe('/memories/b.md\tnew\tcli\n/memories/c.md\tnew\tcli\n/memories/gone.md\tdeleted\tcli\n');
  expect(await run(['review', '--all'])).toMatchObject({ code: 0, stderr: 'Marked 3 changes reviewed.\n' });
  expect(await run(['review'])).toMatchObject({ code: 0, stdout: '' });
  await run(['memory'], memoryLines({ command: 'str_replace', path: '/memories/b.md', old_str: 'B', new_str: 'b again' }));
  expect((await run(['review'])).stdout).toBe('/memories/b.md\tchanged\tcli\n');
});

it('a memory the user imported is not to review until a script moves it', async () => {
  const dir = path.join(vault().root, 'import');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'x.md'), 'imported\n');
  expect((await run(['import', dir])).code).toBe(0);
  expect((await run(['review'])).stdout).not.toMatch(/x\.md/);
  await run(['memory'], memoryLines({ command: 'rename', old_path: '/memories/x.md', new_path: '/memories/y.md' }));
  expect((await run(['review'])).stdout).toMatch(/^\/memories\/y\.md\tnew\tcli$/m);
});

it('keeps each project apart and answers mistakes with the usual exit codes', async () => {
  expect((await run(['projects', 'create', 'Work'])).code).toBe(0);
  await run(['memory', '--project', 'Work'], memoryLines({ command: 'create', path: '/memories/w.md', file_text: 'w\n' }));
  expect((await run(['review', '--project', 'Work'])).stdout).toBe('/memories/w.md\tnew\tcli\n');
  expect(await run(['review', '--mark', '/memories/none.md'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/nothing waits for review/) });
  expect((await run(['review', '--mark', '/memories/w.md', '--all'])).code).toBe(2);
  expect((await run(['review', '--mark', '../etc/passwd'])).code).toBe(2);
  expect((await run(['review', '--project', 'Nope'])).code).toBe(1);
  expect((await mnemo(['review', '--vault', vault().vault], { env: { ...vault().env, MNEMO_PASSPHRASE: 'wrong passphrase here' } })).code).toBe(3);
});
