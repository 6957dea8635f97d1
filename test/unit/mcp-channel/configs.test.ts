/**
 * The configurations main builds for other apps: valid JSON and shell words whatever the project is called.
 *
 * On Windows `mnemo` installed by npm is a `mnemo.cmd` script, which Claude Desktop, Claude Code and Cursor start
 * only through `cmd /c`; cmd.exe then reads the whole command line again, and the `.cmd` script once more (`%*`),
 * where `&`, `|`, `<`, `>`, `^`, `%`, `!`, parentheses and quotes mean something (a project "R&D" would run `D` as a
 * command). So a Windows form names the project by its id, and every word in it is made of characters none of
 * those readings changes.
 */
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

  it('name a project with a backslash by its id in the Claude Code line, which fish would read differently in single quotes', () => {
    for (const name of ['a\\\\b', "it\\'s", 'C:\\notes']) {
      const c = projectConfigs({ id: 'a1b2c3d4e5f6a7b8', name }, false, false);
      // In fish, '\\' and '\'' inside single quotes are escapes: no backslash may reach the shell at all.
      expect(c.configs['claude-code']).not.toContain('\\');
      expect(c.configs['claude-code']).toBe(`claude mcp add --scope user ${c.server} -- mnemo mcp --project-id a1b2c3d4e5f6a7b8`);
      // The JSON forms are read by no shell: the name goes as it is.
      expect((JSON.parse(c.configs['claude-desktop']) as { mcpServers: Record<string, { args: string[] }> }).mcpServers[c.server]!.args).toEqual(['mcp', '--project', name]);
    }
  });
});

/** Characters that no reading on the way (Node or Electron joining argv, cmd.exe, a .cmd script's %*) treats specially. */
const INERT = /^[A-Za-z0-9._/-]+$/;
const HOSTILE = ['R&D', 'say "hi"', '100% sure', 'a^b', 'x|y', '(draft)', 'wow!', 'a<b>c', "it's", 'two  spaces', '家族'];

describe('the Windows configurations', () => {
  it('exist for Claude Desktop, Claude Code and Cursor, run through cmd /c, and name the project by its id', () => {
    const c = projectConfigs({ id: 'a1b2c3d4e5f6a7b8', name: 'R&D' }, false, true);
    const desktop = JSON.parse(c.configs['claude-desktop-windows']) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const cursor = JSON.parse(c.configs['cursor-windows']) as typeof desktop;
    const argv = ['/c', 'mnemo', 'mcp', '--project-id', 'a1b2c3d4e5f6a7b8', '--read-only'];
    expect(desktop.mcpServers[c.server]).toEqual({ command: 'cmd', args: argv });
    expect(cursor.mcpServers[c.server]).toEqual({ command: 'cmd', args: argv });
    expect(c.configs['claude-code-windows']).toBe(`claude mcp add --scope user ${c.server} -- cmd ${argv.join(' ')}`);
    // The first project needs no reference at all.
    const first = projectConfigs({ id: 'default', name: 'Default' }, true, false);
    expect(JSON.parse(first.configs['cursor-windows'])).toEqual({ mcpServers: { mnemo: { command: 'cmd', args: ['/c', 'mnemo', 'mcp'] } } });
    expect(first.configs['claude-code-windows']).toBe('claude mcp add --scope user mnemo -- cmd /c mnemo mcp');
  });

  it('hold only characters cmd.exe, a .cmd script and Node’s argument quoting leave alone, whatever the project is called', () => {
    for (const name of HOSTILE) {
      const c = projectConfigs({ id: 'a1b2c3d4e5f6a7b8', name }, false, true);
      for (const target of ['claude-desktop-windows', 'cursor-windows'] as const) {
        const entry = (JSON.parse(c.configs[target]) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers[c.server]!;
        for (const word of [c.server, entry.command, ...entry.args]) expect(word, `${target} for ${name}`).toMatch(INERT);
        expect(c.configs[target]).not.toContain(name);
      }
      // PowerShell and cmd.exe alike split this line at its spaces and nowhere else.
      for (const word of c.configs['claude-code-windows'].split(' ')) expect(word, `claude-code-windows for ${name}`).toMatch(INERT);
    }
  });
});
