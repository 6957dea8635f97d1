/** `mnemo init` and `passwd` refuse the passphrases the app refuses, unless a script says --allow-weak. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../../electron/cli/main';
import { PassThrough } from 'node:stream';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await fs.rm(r, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env };
  const code = await runCli([...args, '--kdf-ops', '2', '--kdf-mem', '64'], io);
  return { code, out, err };
}

async function root() {
  const r = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-strength-'));
  roots.push(r);
  return { vault: path.join(r, 'v'), env: { XDG_STATE_HOME: path.join(r, 'state'), HOME: r } };
}

describe('passphrase strength in the CLI', () => {
  it.each(['abc', 'Football2024!!', 'Summer2024!Summer'])('init refuses %s with the reason, and makes no vault', async (weak) => {
    const r = await root();
    const res = await cli(['init', '--vault', r.vault], { ...r.env, MNEMO_PASSPHRASE: weak });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/too weak/);
    if (weak.length > 3) expect(res.err).not.toContain(weak); // zxcvbn's own advice may name 'abc' as a sequence
    await expect(fs.access(path.join(r.vault, 'vault.json'))).rejects.toThrow();
  });

  it('init with --allow-weak makes the vault anyway, for scripts and tests', async () => {
    const r = await root();
    const res = await cli(['init', '--vault', r.vault, '--allow-weak'], { ...r.env, MNEMO_PASSPHRASE: 'abc' });
    expect(res.code).toBe(0);
    expect(res.out.trim()).toMatch(/^[A-Z0-9-]+$/);
  });

  it('passwd refuses a weak new passphrase and the old one still opens the vault', async () => {
    const r = await root();
    const strong = 'amber-kettle-orbit-sonnet-42';
    expect((await cli(['init', '--vault', r.vault], { ...r.env, MNEMO_PASSPHRASE: strong })).code).toBe(0);
    const res = await cli(['passwd', '--vault', r.vault], { ...r.env, MNEMO_PASSPHRASE: strong, MNEMO_NEW_PASSPHRASE: 'password123456' });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/too weak/);
    expect((await cli(['verify', '--vault', r.vault], { ...r.env, MNEMO_PASSPHRASE: strong })).code).toBe(0);
  });
});
