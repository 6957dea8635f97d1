/**
 * Second attack round on the configurations main builds: every POSIX form (Claude Desktop, Claude Code, Cursor)
 * must start `mnemo mcp` on the project named, whatever the name. A name that starts with a dash ("-x", "--read-only",
 * "- Inbox") was passed as `--project -x`, which mnemo's own argument parser refuses as ambiguous (or would take as
 * a flag): the server never started.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectConfigs } from '../../../electron/main/channel-configs';
import { initVault, mnemo, startMcp } from '../mcp/helpers';

const NAMES = ['-x', '--read-only', '--vault=/tmp/elsewhere', '-h', '- Inbox', '--', 'R&D', 'say "hi"', '100% sure', "it's", 'a\\b', '家族 🙂', '-'];
const ID = 'a1b2c3d4e5f6a7b8';

type Servers = { mcpServers: Record<string, { command: string; args: string[] }> };

/** The words each POSIX form runs after `mnemo`. */
function posixArgs(name: string, readOnly: boolean): Record<string, string[]> {
  const c = projectConfigs({ id: ID, name }, false, readOnly);
  const json = (t: 'claude-desktop' | 'cursor') => (JSON.parse(c.configs[t]) as Servers).mcpServers[c.server]!.args;
  const words = execFileSync('sh', ['-c', `set -- ${c.configs['claude-code']}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
  return { 'claude-desktop': json('claude-desktop'), cursor: json('cursor'), 'claude-code': words.slice(words.indexOf('--') + 2) };
}

describe('the POSIX configurations, for a project whose name is hostile to an argument parser', () => {
  it('give mnemo mcp that project, and nothing else, as its argument parser reads them', () => {
    for (const name of NAMES) {
      for (const readOnly of [false, true]) {
        for (const [target, args] of Object.entries(posixArgs(name, readOnly))) {
          // mnemo's own parser (electron/cli/main.ts): strict, with --project a string and --read-only a flag.
          const parse = () => parseArgs({ args, options: { project: { type: 'string' }, 'project-id': { type: 'string' }, 'read-only': { type: 'boolean' }, vault: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
          expect(parse, `${target} for ${name}`).not.toThrow();
          const { values, positionals } = parse();
          // A name with a backslash goes by its id in the line typed in a shell (fish reads backslashes in single quotes).
          const project = target === 'claude-code' && name.includes('\\') ? { 'project-id': ID } : { project: name };
          expect({ values, positionals }, `${target} for ${name}`).toEqual({ values: { ...project, ...(readOnly ? { 'read-only': true } : {}) }, positionals: ['mcp'] });
        }
      }
    }
  });

  it('start a server that works in that project (the real mnemo mcp, with the SDK’s client)', async () => {
    const { vault, env } = await initVault();
    const name = '-x Drafts';
    expect((await mnemo(['projects', 'create', '--vault', vault, '--', name], { env })).code).toBe(0);
    const mcp = await startMcp(vault, env, { args: posixArgs(name, false)['claude-desktop']!.slice(1) });
    try {
      expect(await mcp.memory({ command: 'create', path: '/memories/a.md', file_text: 'in the drafts' })).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false });
    } finally {
      await mcp.close();
    }
    // It went to that project: the first project's memory does not have it.
    const first = await startMcp(vault, env);
    try {
      expect((await first.memory({ command: 'view', path: '/memories/a.md' })).is_error).toBe(true);
    } finally {
      await first.close();
    }
  });
});
