/**
 * `mnemo history PATH` and `mnemo cat PATH --version N`: a memory's versions listed newest first and an old one printed,
 * run as the real bundle (the computer each version came from: devices.test.ts, on a synced vault).
 */
import { expect, it } from 'vitest';
import { memoryLines, vaultForFile } from './helpers';

const { run } = vaultForFile();

it('lists every version newest first (number, time, who, computer) and prints any of them, a deleted memory\'s too', async () => {
  const wrote = await run(
    ['memory'],
    memoryLines(
      { command: 'create', path: '/memories/n.md', file_text: 'one\n' },
      { command: 'str_replace', path: '/memories/n.md', old_str: 'one', new_str: 'two' },
      { command: 'str_replace', path: '/memories/n.md', old_str: 'two', new_str: 'three' },
    ),
  );
  expect(wrote.code).toBe(0);
  const lines = (await run(['history', '/memories/n.md'])).stdout.trim().split('\n');
  expect(lines.map((l) => l.split('\t')[0])).toEqual(['3', '2', '1']);
  // The computer that wrote each version: none in format 1 (`-`, one writer); its device id in format 2.
  const computer = process.env.MNEMO_FORMAT !== '1' ? '[0-9a-f]{32}' : '-';
  for (const l of lines) expect(l).toMatch(new RegExp(`^\\d\\t\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\tcli\\t${computer}$`));
  expect((await run(['cat', '/memories/n.md', '--version', '1'])).stdout).toBe('one\n');
  expect((await run(['cat', '/memories/n.md', '--version', '2'])).stdout).toBe('two\n');
  expect((await run(['cat', '/memories/n.md'])).stdout).toBe('three\n');
  // Deleted: its versions stay listed and readable until the trash is emptied.
  expect((await run(['memory'], memoryLines({ command: 'delete', path: '/memories/n.md' }))).code).toBe(0);
  expect((await run(['cat', '/memories/n.md', '--version', '2'])).stdout).toBe('two\n');
  expect((await run(['history', '/memories/n.md'])).code).toBe(0);
});

it('refuses what it cannot answer: no such memory, no such version, a version that is not a number, a missing PATH', async () => {
  expect(await run(['history', '/memories/none.md'])).toMatchObject({ code: 1, stdout: '' });
  expect(await run(['history'])).toMatchObject({ code: 2, stderr: expect.stringContaining('history takes exactly one PATH') });
  expect(await run(['history', '../etc/passwd'])).toMatchObject({ code: 2 });
  await run(['memory'], memoryLines({ command: 'create', path: '/memories/m.md', file_text: 'm\n' }));
  expect(await run(['cat', '/memories/m.md', '--version', '9'])).toMatchObject({ code: 1, stdout: '' });
  expect(await run(['cat', '/memories/m.md', '--version', '-1'])).toMatchObject({ code: 2, stdout: '' });
  for (const bad of ['0', 'x', '1.5', '1e3', '01']) expect(await run(['cat', '/memories/m.md', '--version', bad])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('--version takes a version number') });
});

it("works in the project --project names: another project's memory of the same path is not listed or printed", async () => {
  expect((await run(['projects', 'create', 'Trip'])).code).toBe(0);
  await run(['memory', '--project', 'Trip'], memoryLines({ command: 'create', path: '/memories/only-trip.md', file_text: 'rome\n' }, { command: 'str_replace', path: '/memories/only-trip.md', old_str: 'rome', new_str: 'florence' }));
  expect((await run(['history', '/memories/only-trip.md', '--project', 'Trip'])).stdout.trim().split('\n').map((l) => l.split('\t')[0])).toEqual(['2', '1']);
  expect((await run(['cat', '/memories/only-trip.md', '--version', '1', '--project', 'Trip'])).stdout).toBe('rome\n');
  expect(await run(['history', '/memories/only-trip.md'])).toMatchObject({ code: 1, stdout: '' });
  expect(await run(['cat', '/memories/only-trip.md', '--version', '1'])).toMatchObject({ code: 1, stdout: '' });
});
