/**
 * `mnemo mcp` as a person meets it: its own `--help` (what it is, that an MCP
 * client starts it, the flags, a configuration, where the app shows ready
 * configurations), and, started by hand in a terminal, one line on stderr
 * saying it waits for an MCP client (stdout stays the MCP stream's).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../electron/cli/main';
import { usage } from '../../../electron/cli/usage';
import { mnemo, tempDir } from './helpers';

describe('mnemo mcp --help', () => {
  it('prints the MCP server’s own help, not the general one, and exits 0', async () => {
    for (const args of [['mcp', '--help'], ['mcp', '-h'], ['help', 'mcp']]) {
      const r = await mnemo(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).not.toBe(usage());
      expect(r.stdout).toMatch(/^mnemo mcp — /);
      for (const words of [
        'MCP server',
        'An MCP client (Claude Desktop, Claude Code, Cursor…) starts it',
        'not something to run by hand',
        '--project NAME',
        '--read-only',
        '--vault DIR',
        '--passphrase-file FILE',
        'MNEMO_PASSPHRASE',
        '"mcpServers"',
        '"command": "mnemo"',
        'claude mcp add --scope user mnemo -- mnemo mcp',
        'Settings → Use this memory in other apps',
      ]) {
        expect(r.stdout, words).toContain(words);
      }
      expect(r.stderr).toBe('');
    }
  });
});

/** `mnemo mcp` run in process on `stdin`; what it wrote, and its exit code once stdin ends. */
function serve(stdin: PassThrough, dir: string) {
  const out = { stdout: '', stderr: '' };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  const code = runCli(['mcp', '--vault', dir], { stdin, stdout, stderr, env: { XDG_STATE_HOME: dir } });
  return { out, code };
}

describe('mnemo mcp run by hand', () => {
  it('in a terminal, says on stderr that it waits for an MCP client and how to configure one; stdout stays empty', async () => {
    const dir = await tempDir();
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    const { out, code } = serve(tty, dir);
    await vi.waitFor(() => expect(out.stderr).toContain('waiting for an MCP client'));
    expect(out.stderr).toMatch(/^mnemo mcp: this is an MCP server, waiting for an MCP client on standard input; an MCP client .* starts it\. See mnemo mcp --help\.$/m);
    tty.end();
    expect(await code).toBe(0);
    expect(out.stdout).toBe('');
  });

  it('started by a client (stdin is not a terminal), says nothing of the kind', async () => {
    const dir = await tempDir();
    const { out, code } = serve(new PassThrough().end() as PassThrough, dir);
    expect(await code).toBe(0);
    expect(out.stderr).not.toContain('waiting for an MCP client');
  });
});
