/** The configurations main builds for other apps: valid JSON and shell words whatever the project is called. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectConfigs, serverName } from '../../../electron/main/channel-configs';

describe('the configurations for other apps', () => {
  it('name each project’s server with letters, digits and dashes only, falling back to its id', () => {
    expect(serverName({ id: 'default', name: 'Default' }, true)).toBe('mnemo');
    expect(serverName({ id: 'a1b2c3d4e5f6a7b8', name: 'Café Notes' }, false)).toBe('mnemo-cafe-notes');
    expect(serverName({ id: 'a1b2c3d4e5f6a7b8', name: '家族' }, false)).toBe('mnemo-a1b2c3d4');
    expect(serverName({ id: 'a1b2c3d4e5f6a7b8', name: `${'x'.repeat(39)} y` }, false)).toBe(`mnemo-${'x'.repeat(39)}`);
  });

  it('pass any project name through intact: as a JSON string, and as one word to a POSIX shell', () => {
    for (const name of [`It's "ours" & $HOME \`id\``, 'Garden; rm -rf ~', '家族 notes', "a'b''c"]) {
      const c = projectConfigs({ id: 'a1b2c3d4e5f6a7b8', name }, false, true);
      const desktop = JSON.parse(c.configs['claude-desktop']) as { mcpServers: Record<string, { args: string[] }> };
      expect(desktop.mcpServers[c.server]!.args).toEqual(['mcp', '--project', name, '--read-only']);
      // The shell's own reading of the Claude Code line gives back exactly these arguments.
      const words = execFileSync('sh', ['-c', `set -- ${c.configs['claude-code']}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
      expect(words).toEqual(['claude', 'mcp', 'add', '--scope', 'user', c.server, '--', 'mnemo', 'mcp', '--project', name, '--read-only']);
    }
  });
});
