/** `mnemo ls | head -1`: a reader that stops early ends the command quietly, without a stack trace. */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BUNDLE, initVault, mnemo } from './helpers';
import { cliEnv } from '../../test-cli';

let root = '';
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('a closed stdout pipe', () => {
  it('mnemo ls | head -1 prints one line and mnemo exits quietly', async () => {
    const t = await initVault();
    root = t.root;
    const src = path.join(t.root, 'src');
    await fs.mkdir(src);
    // Far more than a pipe holds, so ls is still writing when head has gone.
    for (let i = 0; i < 2500; i++) await fs.writeFile(path.join(src, `a-memory-with-a-rather-long-name-${String(i).padStart(5, '0')}.md`), 'x');
    expect((await mnemo(['import', src, '--vault', t.vault], { env: t.env })).code).toBe(0);
    const script = `"$1" "$2" ls --vault "$3" | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, CLI_BUNDLE, t.vault], { env: cliEnv(t.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    await new Promise((resolve) => child.on('close', resolve));
    expect(out.trim().split('\n')).toHaveLength(1);
    expect(err).not.toMatch(/EPIPE|Error|at /);
    expect(err).toMatch(/exit=0/);
  }, 120_000);
});
