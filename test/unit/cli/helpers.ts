import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { cliEnv, SHIPPED_CLI_BUNDLE, TEST_CLI_BUNDLE } from '../../test-cli';
import { startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';

export const PASS = 'correct horse battery staple';
/** The vault's floor KDF: real Argon2id, just the cheapest the vault accepts. */
export const FAST_KDF = ['--kdf-ops', '2', '--kdf-mem', '64'];

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The bundled CLI as a user runs it, but deriving keys with the tests' stand-in for Argon2id (test/test-cli.ts;
 * built by the global setup), as this test process does: a vault either makes, the other opens.
 */
export const CLI_BUNDLE = TEST_CLI_BUNDLE;
/** The bundle as shipped, for the tests about the bundle itself; its vaults need the real derivation. */
export { SHIPPED_CLI_BUNDLE };

/** Runs `node dist/cli.js args…` (the bundle, as installed) with the given stdin text and exactly the given environment. */
export async function mnemo(args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI_BUNDLE, ...args], { env: cliEnv(opts.env ?? {}), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  child.stdin.on('error', () => undefined);
  child.stdin.end(opts.stdin ?? '');
  // A run that hangs is killed before the test's time runs out, and said with what it printed: a timed-out test
  // would not say which command stopped, nor where.
  const hung = setTimeout(() => {
    process.stderr.write(`mnemo ${args.join(' ')} has not exited after ${HANG_MS / 1000} s; stdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}\n`);
    child.kill('SIGKILL');
  }, HANG_MS);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  clearTimeout(hung);
  return { code, stdout: out, stderr: err };
}

/** Longer than any command takes under load, shorter than a test's limit (vitest.config.ts: 60 s). */
const HANG_MS = 45_000;

/** Made by tempDir() in this test file: removed after its last test (a thousand were left in /tmp per run). */
const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.splice(0).map((d) => fs.rm(d, { recursive: true, force: true }).catch(() => undefined)));
});

export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-cli-'));
  made.push(dir);
  return dir;
}

/** A fresh vault under a temp dir, with its own device state dir so tests never touch the user's. */
/** `more`: added to the vault's environment (MNEMO_FORMAT '1' for a test about format 1 itself). */
export async function initVault(more: NodeJS.ProcessEnv = {}): Promise<{ root: string; vault: string; env: NodeJS.ProcessEnv; recoveryKey: string }> {
  const root = await tempDir();
  const vault = path.join(root, 'vault');
  const env = { MNEMO_PASSPHRASE: PASS, XDG_STATE_HOME: path.join(root, 'state'), HOME: root, ...more };
  const res = await mnemo(['init', '--vault', vault, ...FAST_KDF], { env });
  if (res.code !== 0) throw new Error(`init failed: ${res.stderr}`);
  return { root, vault, env, recoveryKey: res.stdout.trim() };
}

/**
 * One vault made by `mnemo init` for the calling file's tests (removed after them), and `run`, which runs `mnemo` on it
 * with its environment. `v` is set once the file's tests start.
 */
export function vaultForFile(): { v: () => Awaited<ReturnType<typeof initVault>>; run: (args: string[], stdin?: string) => Promise<CliRun> } {
  let v: Awaited<ReturnType<typeof initVault>> | undefined;
  beforeAll(async () => {
    v = await initVault();
  });
  afterAll(async () => {
    if (v) await fs.rm(v.root, { recursive: true, force: true });
  });
  return { v: () => v!, run: (args, stdin) => mnemo([...args, '--vault', v!.vault], { env: v!.env, ...(stdin !== undefined ? { stdin } : {}) }) };
}

/** Every file under `dir` (relative paths), for checking that a failed command changed nothing. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) await walk(r);
      else out.set(r, (await fs.readFile(path.join(dir, r))).toString('base64'));
    }
  }
  await walk('');
  return out;
}

export function memoryLines(...commands: object[]): string {
  return commands.map((c) => JSON.stringify(c)).join('\n') + '\n';
}

export interface VaultAndFake {
  v: Awaited<ReturnType<typeof initVault>>;
  fake: FakeAnthropic;
  /** The vault's environment, with the CLI pointed at the fake server. */
  env: NodeJS.ProcessEnv;
}

/** For the whole file: a fresh vault and a fake Anthropic server, handed to `set` before the tests run and removed after. */
export function vaultAndFakeForFile(set: (s: VaultAndFake) => void): void {
  let s: VaultAndFake | undefined;
  beforeAll(async () => {
    const v = await initVault();
    const fake = await startFakeAnthropic();
    s = { v, fake, env: { ...v.env, ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL } };
    set(s);
  });
  afterAll(async () => {
    await s?.fake.close();
    if (s) await fs.rm(s.v.root, { recursive: true, force: true });
  });
}

/** A computer of a synced vault, seen from the terminal: its folder, and an environment with its own state folder. */
export interface CliComputer {
  vault: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Two computers on copies of one new format-2 vault under `one.root` (A made it; B starts from a copy of its folder,
 * with its own state folder), and `on(c)`, which runs `mnemo` as that computer.
 */
export async function twoCliComputers(one: { root: string; env: NodeJS.ProcessEnv }): Promise<{ a: CliComputer; b: CliComputer; on: (c: CliComputer) => (args: string[], stdin?: string) => Promise<CliRun> }> {
  const env2 = { ...one.env, MNEMO_FORMAT: '2' };
  const a = { vault: path.join(one.root, 'a'), env: { ...env2, XDG_STATE_HOME: path.join(one.root, 'state-a') } };
  const made = await mnemo(['init', '--vault', a.vault, ...FAST_KDF], { env: a.env });
  if (made.code !== 0) throw new Error(`mnemo init failed: ${made.stderr}`);
  const b = { vault: path.join(one.root, 'b'), env: { ...env2, XDG_STATE_HOME: path.join(one.root, 'state-b') } };
  await fs.cp(a.vault, b.vault, { recursive: true });
  const on = (c: CliComputer) => (args: string[], stdin?: string) => mnemo([...args, '--vault', c.vault], { env: c.env, ...(stdin !== undefined ? { stdin } : {}) });
  return { a, b, on };
}

