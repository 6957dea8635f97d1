/**
 * Attack on `mnemo devices` and the names core keeps (core/vault/devices.ts, cli/devices.ts): names that show nothing,
 * a record main accepts whose time the CLI cannot print, and a listing that writes to the vault's folder.
 * Two computers as in devices.test.ts: two copies of one folder, two state folders, carried as a sync engine would.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceNameOf } from '../../../electron/core/vault/devices';
import { Vault } from '../../../electron/core/vault/vault';
import { carry } from '../sync/two-computers';
import { initVault, memoryLines, mnemo, snapshot } from './helpers';

describe('a name that shows nothing is refused (the "blank ones refused" fix)', () => {
  // Each renders as empty space in Settings and the terminal: the row would show no name, its buttons "Rename ".
  const invisible: [string, string][] = [
    ['HANGUL FILLER U+3164', '\u3164'],
    ['HANGUL CHOSEONG/JUNGSEONG FILLER U+115F U+1160', '\u115f\u1160'],
    ['HALFWIDTH HANGUL FILLER U+FFA0', '\uffa0'],
    ['BRAILLE PATTERN BLANK U+2800', '\u2800'],
    ['VARIATION SELECTOR-16 U+FE0F', '\ufe0f'],
    ['COMBINING GRAPHEME JOINER U+034F', '\u034f'],
  ];
  for (const [what, name] of invisible)
    it(`refuses ${what}`, () => {
      expect(() => deviceNameOf(name)).toThrow(/empty/i);
    });
});

let root = '';
let a: { vault: string; env: NodeJS.ProcessEnv };
let b: { vault: string; env: NodeJS.ProcessEnv };
let recoveryKey = '';
const on = (c: typeof a) => (args: string[], stdin?: string) => mnemo([...args, '--vault', c.vault], { env: c.env, ...(stdin !== undefined ? { stdin } : {}) });
const sync = async () => {
  await carry(a.vault, b.vault);
  await carry(b.vault, a.vault);
};

beforeAll(async () => {
  const one = await initVault();
  root = one.root;
  const env2 = { ...one.env, MNEMO_FORMAT: '2' };
  a = { vault: path.join(root, 'a'), env: { ...env2, XDG_STATE_HOME: path.join(root, 'state-a') } };
  const init = await mnemo(['init', '--vault', a.vault, '--kdf-ops', '2', '--kdf-mem', '64'], { env: a.env });
  expect(init.code).toBe(0);
  recoveryKey = init.stdout.trim();
  b = { vault: path.join(root, 'b'), env: { ...env2, XDG_STATE_HOME: path.join(root, 'state-b') } };
  await fs.cp(a.vault, b.vault, { recursive: true });
  for (const [c, name] of [[a, 'a'], [b, 'b']] as const) {
    expect((await on(c)(['memory'], memoryLines({ command: 'create', path: `/memories/${name}.md`, file_text: `${name}\n` }))).code).toBe(0);
    await sync();
  }
  for (const c of [a, b]) expect((await on(c)(['devices'])).code).toBe(0);
  await sync();
}, 120_000);
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

it('`mnemo devices` (a listing) changes nothing in the vault folder, like the other commands that only read', async () => {
  // Once both have named themselves and seen each other, listing again should be a pure read (READ_ONLY in commands.ts).
  expect((await on(a)(['devices'])).code).toBe(0);
  const before = await snapshot(a.vault);
  const res = await on(a)(['devices']);
  expect(res.code).toBe(0);
  const after = await snapshot(a.vault);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
  expect(changed, 'files a listing wrote or changed').toEqual([]);
}, 60_000);

it('refusals from the terminal: unknown or malformed ids, empty and too-long names, forget without --yes; nothing written', async () => {
  const before = await snapshot(a.vault);
  const run = on(a);
  const unknown = await run(['devices', 'rename', 'f'.repeat(32), 'Ghost']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/computer/i);
  expect((await run(['devices', 'rename', 'NOT-AN-ID', 'Ghost'])).code).toBe(1);
  expect((await run(['devices', 'forget', 'f'.repeat(32), '--yes'])).code).toBe(1);
  const list = (await run(['devices'])).stdout.trim().split('\n').map((l) => l.split('\t'));
  const other = list.find((d) => !d[3]!.includes('this'))!;
  const empty = await run(['devices', 'rename', other[0]!, ' \t\n ']);
  expect(empty).toMatchObject({ code: 1, stderr: expect.stringContaining('cannot be empty') });
  expect((await run(['devices', 'rename', other[0]!, 'x'.repeat(65)])).code).toBe(1);
  expect((await run(['devices', 'forget', other[0]!])).code).toBe(2);
  const after = await snapshot(a.vault);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
  expect(changed).toEqual([]);
}, 60_000);

it('`mnemo devices` still lists every computer when another one wrote a record whose time is past the Date range', async () => {
  // Computer B's clock reads 8.7e15 ms: the record check (op.ts `nat`) takes any safe integer; a Date cannot hold it.
  const realNow = Date.now;
  Date.now = () => 8_700_000_000_000_000;
  try {
    const vb = await Vault.open(b.vault, { stateDir: path.join(root, 'state-b', 'mnemo'), format2: true, ackDelayMs: 0 });
    await vb.unlockWithRecoveryKey(recoveryKey);
    const me = (await vb.internal.device!(true))!;
    await vb.renameDevice(me, 'Far ahead');
    await vb.close();
  } finally {
    Date.now = realNow;
  }
  await carry(b.vault, a.vault);
  const res = await on(a)(['devices']);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(res.stdout.trim().split('\n')).toHaveLength(2);
  expect(res.stdout).toContain('Far ahead');
}, 60_000);
