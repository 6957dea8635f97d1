/**
 * A reader that stops early must not end a command that is still changing the
 * vault with exit 0: `mnemo chat --once … | head -c 20` still finishes the turn
 * (the memory Claude writes, the conversation saved), or says it failed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { memoryCall, reply, text, type FakeAnthropic } from '../../fake-anthropic/server';
import { CLI_BUNDLE, vaultAndFakeForFile, mnemo, type VaultAndFake } from './helpers';
import { cliEnv } from '../../test-cli';

let v: VaultAndFake['v'];
let fake: FakeAnthropic;
let env: NodeJS.ProcessEnv;
vaultAndFakeForFile((s) => ({ v, fake, env } = s));

describe('a closed stdout pipe during a writing command', () => {
  it('mnemo chat --once | head -c 20: the turn is finished and saved, or the exit status says it was not', async () => {
    // Far more than a pipe holds, so mnemo is still writing the reply when head has gone.
    fake.script(reply(text('x'.repeat(100_000)), memoryCall({ command: 'create', path: '/memories/kept.md', file_text: 'kept' })), reply(text('Saved.')));
    const script = `"$1" "$2" chat --once "Remember this." --vault "$3" | head -c 20 >/dev/null; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, CLI_BUNDLE, v.vault], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    await new Promise((resolve) => child.on('close', resolve));
    const code = Number(/exit=(\d+)/.exec(err)?.[1]);
    const cat = await mnemo(['cat', '/memories/kept.md', '--vault', v.vault], { env });
    if (code === 0) {
      expect(cat.stdout).toContain('kept');
      expect(fake.requests).toHaveLength(2);
      const convs = await mnemo(['conversations', '--vault', v.vault], { env });
      expect(convs.stdout).toMatch(/\S/);
    }
    expect(err).not.toMatch(/EPIPE|Error|at /);
  }, 120_000);

  it('a closed stderr pipe does not stop a writing command: its change is made and its status says so', async () => {
    const src = `${v.root}/notes`;
    await fs.mkdir(src, { recursive: true });
    await fs.writeFile(`${src}/a.md`, 'from stderr test');
    // stderr goes to a reader that has already gone; import writes its report there.
    const script = `exec 3>&1; "$1" "$2" import "$4" --vault "$3" 2>&1 >/dev/null | true; echo "exit=\${PIPESTATUS[0]}" >&3`;
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, CLI_BUNDLE, v.vault, src], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await new Promise((resolve) => child.on('close', resolve));
    const code = Number(/exit=(\d+)/.exec(out)?.[1]);
    const cat = await mnemo(['cat', '/memories/a.md', '--vault', v.vault], { env });
    expect(cat.stdout.includes('from stderr test') ? 0 : 1).toBe(code);
  }, 120_000);
});
