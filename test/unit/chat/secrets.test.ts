import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { setApiKey } from '../../../electron/core/chat/settings-store';
import { memoryCall, reply, startFakeAnthropic, text } from '../../fake-anthropic/server';
import { CLI_BUNDLE, FAST_KDF, mnemo } from '../cli/helpers';
import { cliEnv } from '../../test-cli';

const PASSPHRASE = 'passphrase-marker-Quokka-2041';
const API_KEY = 'sk-ant-api03-SECRETmarkerWombat7788';

function run(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BUNDLE, ...args], { env: cliEnv({ PATH: process.env.PATH, ...env }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.stdin.end(stdin);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(path.join(e.parentPath, e.name));
  return out;
}

it('mnemo chat --once talks to the API end to end; the key and passphrase appear nowhere outside the vault', async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-chat-'));
  const fake = await startFakeAnthropic({ apiKey: API_KEY });
  try {
    const vault = path.join(root, 'vault');
    const env = { HOME: root, XDG_STATE_HOME: path.join(root, 'state'), MNEMO_PASSPHRASE: PASSPHRASE, ANTHROPIC_BASE_URL: fake.baseURL, TMPDIR: root };
    expect((await mnemo(['init', '--vault', vault, ...FAST_KDF], { env })).code).toBe(0);
    // The key lives in the vault, not in the environment.
    const { Vault } = await import('../../../electron/core/vault/vault');
    const v = await Vault.open(vault, { stateDir: env.XDG_STATE_HOME });
    await v.unlock(PASSPHRASE);
    await setApiKey(v, API_KEY);
    await v.close();

    fake.script(reply(text('Checking.'), memoryCall({ command: 'view', path: '/memories' })), reply(memoryCall({ command: 'create', path: '/memories/fact.md', file_text: 'The sky is blue.' })), reply(text('I will remember that.')));
    const first = await run(['chat', '--vault', vault, '--once', 'Remember: the sky is blue.'], env);
    expect(first.stderr).toMatch(/conversation [0-9a-f]+/);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Checking.');
    expect(first.stdout).toContain('[memory] view /memories\n');
    expect(first.stdout).toContain('[memory] create /memories/fact.md\n');
    expect(first.stdout).toContain('I will remember that.');
    expect((await mnemo(['cat', '/memories/fact.md', '--vault', vault], { env })).stdout).toBe('The sky is blue.');

    // Continue the same conversation with the message on stdin.
    const id = /conversation ([0-9a-f]+)/.exec(first.stderr)![1]!;
    fake.script(reply(text('Still blue.')));
    const second = await run(['chat', '--vault', vault, '--conversation', id], env, 'What colour is the sky?\n');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Still blue.');
    expect(fake.requests.at(-1)!.body.messages).toHaveLength(7);
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${API_KEY}`)).toBe(true);

    // A refused key is an error exit with an actionable message and no key in it.
    fake.script();
    const bad = await run(['chat', '--vault', vault, '--once', 'hi'], { ...env, ANTHROPIC_API_KEY: 'sk-ant-wrong' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/API key was refused/);

    for (const out of [first, second, bad]) {
      for (const secret of [API_KEY, PASSPHRASE, 'sk-ant-wrong']) {
        expect(out.stdout).not.toContain(secret);
        expect(out.stderr).not.toContain(secret);
      }
    }
    // No file anywhere under the temp home (vault, state, tmp) holds either secret, in plain text or UTF-16.
    for (const file of await filesUnder(root)) {
      const bytes = await fs.readFile(file);
      for (const secret of [API_KEY, PASSPHRASE]) {
        expect(bytes.includes(Buffer.from(secret)), file).toBe(false);
        expect(bytes.includes(Buffer.from(secret, 'utf16le')), file).toBe(false);
      }
    }
  } finally {
    await fake.close();
    await fs.rm(root, { recursive: true, force: true });
  }
});
