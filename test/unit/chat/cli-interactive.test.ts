import fs from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { Vault } from '../../../electron/core/vault/vault';
import { memoryCall, reply, startFakeAnthropic, text } from '../../fake-anthropic/server';
import { FAST_KDF, PASS, mnemo, tempDir } from '../cli/helpers';

it('interactive mnemo chat answers each line in the same conversation and leaves on /quit', async () => {
  const root = await tempDir();
  const fake = await startFakeAnthropic();
  try {
    const vault = path.join(root, 'vault');
    const env = { HOME: root, XDG_STATE_HOME: path.join(root, 'state'), MNEMO_PASSPHRASE: PASS, ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey };
    expect((await mnemo(['init', '--vault', vault, ...FAST_KDF], { env })).code).toBe(0);
    fake.script(reply(text('Hello, Ada.')), reply(text('You said your name is Ada.')));
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c));
    stderr.on('data', (c: Buffer) => (err += c));
    const done = runCli(['chat', '--vault', vault], { stdin, stdout, stderr, env });
    stdin.write('I am Ada.\n');
    await expect.poll(() => out, { timeout: 20_000 }).toContain('Hello, Ada.');
    stdin.write('What is my name?\n');
    await expect.poll(() => out, { timeout: 20_000 }).toContain('You said your name is Ada.');
    stdin.write('/quit\n');
    expect(await done).toBe(0);
    expect(err).toMatch(/Continue later with: mnemo chat --conversation [0-9a-f]+/);
    // The second request carried the first exchange: one conversation, not two.
    expect(fake.requests.at(-1)!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  } finally {
    await fake.close();
    await fs.rm(root, { recursive: true, force: true });
  }
});

it('in approval mode the terminal asks before each memory write: yes writes it, no leaves the vault unchanged', async () => {
  const root = await tempDir();
  const fake = await startFakeAnthropic();
  try {
    const vault = path.join(root, 'vault');
    const env = { HOME: root, XDG_STATE_HOME: path.join(root, 'state'), MNEMO_PASSPHRASE: PASS, ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey };
    expect((await mnemo(['init', '--vault', vault, ...FAST_KDF], { env })).code).toBe(0);
    const v = await Vault.open(vault, { stateDir: env.XDG_STATE_HOME });
    await v.unlock(PASS);
    await saveSettings(v, { approvalMode: true });
    await v.close();

    fake.script(reply(memoryCall({ command: 'create', path: '/memories/yes.md', file_text: 'keep' })), reply(memoryCall({ command: 'create', path: '/memories/no.md', file_text: 'drop' })), reply(text('Done.')));
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c));
    stderr.on('data', (c: Buffer) => (err += c));
    const done = runCli(['chat', '--vault', vault], { stdin, stdout, stderr, env });
    stdin.write('Remember two things.\n');
    await expect.poll(() => err, { timeout: 20_000 }).toContain('Allow Claude to create /memories/yes.md? [y/N]');
    stdin.write('y\n');
    await expect.poll(() => err, { timeout: 20_000 }).toContain('Allow Claude to create /memories/no.md? [y/N]');
    stdin.write('n\n');
    await expect.poll(() => out, { timeout: 20_000 }).toContain('Done.');
    stdin.write('/quit\n');
    expect(await done).toBe(0);
    expect(out).toContain('[memory] create /memories/yes.md\n');
    expect(out).toMatch(/\[memory\] create \/memories\/no.md — Error: The user declined/);
    expect((await mnemo(['cat', '/memories/yes.md', '--vault', vault], { env })).stdout).toBe('keep');
    expect((await mnemo(['cat', '/memories/no.md', '--vault', vault], { env })).code).not.toBe(0);
  } finally {
    await fake.close();
    await fs.rm(root, { recursive: true, force: true });
  }
});

it('in a terminal Ctrl+C stops the reply in progress, and at the prompt it leaves', async () => {
  const root = await tempDir();
  const fake = await startFakeAnthropic();
  try {
    const vault = path.join(root, 'vault');
    const env = { HOME: root, XDG_STATE_HOME: path.join(root, 'state'), MNEMO_PASSPHRASE: PASS, ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey };
    expect((await mnemo(['init', '--vault', vault, ...FAST_KDF], { env })).code).toBe(0);
    const long = 'This reply streams slowly and is stopped long before it reaches its end.';
    fake.script({ ...reply(text(long)), delayMs: 30, chunk: 2 });
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    // A terminal on the prompt side makes readline read keys, so Ctrl+C arrives as SIGINT.
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c));
    stderr.on('data', (c: Buffer) => (err += c));
    const done = runCli(['chat', '--vault', vault], { stdin, stdout, stderr, env });
    stdin.write('Tell me a long story.\r');
    await expect.poll(() => out.length, { timeout: 20_000 }).toBeGreaterThan(4);
    stdin.write('\x03');
    await expect.poll(() => err, { timeout: 20_000 }).toMatch(/Stopped/);
    stdin.write('\x03');
    expect(await done).toBe(0);
    expect(out).not.toContain(long);
    expect(err).toMatch(/Continue later with: mnemo chat --conversation [0-9a-f]+/);
  } finally {
    await fake.close();
    await fs.rm(root, { recursive: true, force: true });
  }
});
