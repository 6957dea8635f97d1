import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { CLI_BUNDLE, FAST_KDF, PASS, tempDir } from './helpers';
import { cliEnv } from '../../test-cli';


function start(args: string[], env: NodeJS.ProcessEnv) {
  return spawn(process.execPath, [CLI_BUNDLE, ...args], { env: cliEnv({ PATH: process.env.PATH, ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
}

function finished(child: ReturnType<typeof start>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the mnemo process', () => {
  it('init and then memory answer line by line, each answer before the next question is sent', async () => {
    const root = await tempDir();
    const env = { MNEMO_PASSPHRASE: PASS, HOME: root, XDG_STATE_HOME: path.join(root, 'state') };
    const vault = path.join(root, 'vault');
    const init = await finished(start(['init', '--vault', vault, ...FAST_KDF], env));
    expect(init.code).toBe(0);
    expect(init.stdout.trim()).toMatch(/^[A-Z2-7-]+$/);
    expect(init.stderr).not.toContain(PASS);

    // Keep stdin open: an answer must arrive while the process still waits for more input.
    const child = start(['memory', '--vault', vault], env);
    const answers = readline.createInterface({ input: child.stdout });
    const next = () => new Promise<string>((resolve) => answers.once('line', resolve));
    child.stdin.write(JSON.stringify({ command: 'create', path: '/memories/a.md', file_text: 'one' }) + '\n');
    expect(JSON.parse(await next())).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false });
    child.stdin.write(JSON.stringify({ command: 'str_replace', path: '/memories/a.md', old_str: 'one', new_str: 'two' }) + '\n');
    expect(JSON.parse(await next())).toMatchObject({ is_error: false });
    child.stdin.end();
    const done = await finished(child);
    expect(done.code).toBe(0);

    const cat = await finished(start(['cat', '/memories/a.md', '--vault', vault], env));
    expect(cat).toMatchObject({ code: 0, stdout: 'two' });
  });
});
