/**
 * `mnemo review` on a vault two computers write: a memory changed on both at once is listed as a `conflict` line
 * with the versions to look at (`mnemo cat PATH --version N`) and the computers, and `--mark PATH` / `--all` mark it
 * on every computer once the mark is carried. Run as the real bundle on two copies of one vault folder (two state
 * folders: two computers), carried as a sync engine would.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { carry } from '../sync/two-computers';
import { initVault, memoryLines, mnemo } from './helpers';

let one: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  one = await initVault();
});
afterAll(async () => {
  await fs.rm(one.root, { recursive: true, force: true });
});

/** Two computers on copies of one new format-2 vault; `sync` carries each one's files to the other. */
async function twoComputers(name: string) {
  const env2 = { ...one.env, MNEMO_FORMAT: '2' };
  const a = { vault: path.join(one.root, `${name}-a`), env: { ...env2, XDG_STATE_HOME: path.join(one.root, `${name}-state-a`) } };
  expect((await mnemo(['init', '--vault', a.vault, '--kdf-ops', '2', '--kdf-mem', '64'], { env: a.env })).code).toBe(0);
  const b = { vault: path.join(one.root, `${name}-b`), env: { ...env2, XDG_STATE_HOME: path.join(one.root, `${name}-state-b`) } };
  await fs.cp(a.vault, b.vault, { recursive: true });
  const on = (c: typeof a) => (args: string[], stdin?: string) => mnemo([...args, '--vault', c.vault], { env: c.env, ...(stdin !== undefined ? { stdin } : {}) });
  const sync = async () => {
    await carry(a.vault, b.vault);
    await carry(b.vault, a.vault);
  };
  return { a: on(a), b: on(b), sync };
}

const conflictLines = (stdout: string) => stdout.split('\n').filter((l) => l.split('\t')[1] === 'conflict');
const LINE = /^(\/memories\/[^\t]+)\tconflict\t([^\t]+)\t(edit|delete)\t(\d+)\t([\d,]+|-)\t([^\t]+)$/;

it('lists a memory changed on two computers at once as a conflict line with its versions, and --mark clears it on both', async () => {
  const { a, b, sync } = await twoComputers('edit');
  const p = '/memories/plan.md';
  expect((await a(['memory'], memoryLines({ command: 'create', path: p, file_text: 'title\nmeet on monday\n' }))).code).toBe(0);
  await sync();
  expect((await a(['memory'], memoryLines({ command: 'str_replace', path: p, old_str: 'monday', new_str: 'tuesday' }))).code).toBe(0);
  expect((await b(['memory'], memoryLines({ command: 'str_replace', path: p, old_str: 'monday', new_str: 'friday' }))).code).toBe(0);
  await sync();
  const lines = conflictLines((await a(['review'])).stdout);
  expect(lines).toHaveLength(1);
  const [, at, who, what, kept, others, computers] = LINE.exec(lines[0]!)!;
  expect([at, who, what]).toEqual([p, 'cli', 'edit']);
  expect(computers).not.toBe('-');
  // The version kept is current; the one set aside is printed by `cat --version`, and listed by `history`.
  expect((await a(['cat', p])).stdout).toBe((await a(['cat', p, '--version', kept!])).stdout);
  const texts = [(await a(['cat', p])).stdout, (await a(['cat', p, '--version', others!])).stdout].sort();
  expect(texts).toEqual(['title\nmeet on friday\n', 'title\nmeet on tuesday\n']);
  expect((await a(['history', p])).stdout).toMatch(new RegExp(`^${others}\\t`, 'm'));
  // B lists the same conflict (a computer's name may not have reached it yet: its id stands for it until then).
  const fromB = conflictLines((await b(['review'])).stdout);
  expect(fromB.map((l) => l.split('\t').slice(0, 6))).toEqual(lines.map((l) => l.split('\t').slice(0, 6)));

  expect(await a(['review', '--mark', p])).toMatchObject({ code: 0, stderr: expect.stringContaining(`Marked the conflict at ${p} reviewed.`) });
  expect((await a(['review'])).stdout).toBe('');
  expect(conflictLines((await b(['review'])).stdout)).toHaveLength(1);
  await sync();
  expect(conflictLines((await b(['review'])).stdout)).toEqual([]);
}, 120_000);

it('a delete that met an edit is a conflict line too, and --all marks it with everything else', async () => {
  const { a, b, sync } = await twoComputers('delete');
  const p = '/memories/gone.md';
  await a(['memory'], memoryLines({ command: 'create', path: p, file_text: 'keep me\n' }));
  await sync();
  await a(['memory'], memoryLines({ command: 'delete', path: p }));
  await b(['memory'], memoryLines({ command: 'str_replace', path: p, old_str: 'keep me', new_str: 'keep me, edited' }));
  await sync();
  const [line, ...more] = conflictLines((await b(['review'])).stdout);
  expect(more).toEqual([]);
  expect(LINE.exec(line!)!.slice(1, 6)).toEqual([p, 'cli', 'delete', '2', '1']);
  expect((await b(['cat', p])).stdout).toBe('keep me, edited\n');
  expect(await b(['review', '--all'])).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Marked \d+ changes reviewed\.\n$/) });
  expect((await b(['review'])).stdout).toBe('');
  await sync();
  expect(conflictLines((await a(['review'])).stdout)).toEqual([]);
}, 120_000);
