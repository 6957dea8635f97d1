/**
 * The ready-to-paste configurations that make Claude Desktop, Claude Code and
 * Cursor start `mnemo mcp` for a project. Built in main: the window shows and
 * copies them but cannot choose what they run. None carries a passphrase:
 * while Mnemo is unlocked, `mnemo mcp` talks to it over the local channel.
 */
import type { ConfigTarget, ProjectConfigs } from '../shared/channel';

/**
 * The command other apps run. The packaged app cannot point at a copy of
 * itself: the CLI bundle is not shipped inside it (build/electron-builder.yml
 * leaves dist/cli out, it needs node_modules beside it) and its Electron cannot
 * run as Node (the runAsNode fuse is off, on purpose). So the configurations
 * run `mnemo` from the PATH, as installed from a checkout (`npm link`) or with
 * `npm install -g`. It also keeps every host path out of the window, which
 * never receives one (DESIGN.md §1).
 */
export const MNEMO_COMMAND = 'mnemo';

interface ProjectRef {
  id: string;
  name: string;
}

/** The name another app lists the server under: `mnemo` for the first project, `mnemo-<name>` for the others. */
export function serverName(project: ProjectRef, isFirst: boolean): string {
  if (isFirst) return 'mnemo';
  const slug = project.name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  // A name with no Latin letters or digits gets its id instead, so the server name stays one any app accepts.
  return `mnemo-${slug || project.id.slice(0, 8)}`;
}

/** A word for a POSIX shell: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Every configuration for one project; `readOnly` adds `--read-only` (the other app may only view). */
export function projectConfigs(project: ProjectRef, isFirst: boolean, readOnly: boolean): ProjectConfigs {
  const server = serverName(project, isFirst);
  const flags = readOnly ? ['--read-only'] : [];
  // A name that starts with a dash ("-x", "--read-only") is joined to its flag: given as the next word, mnemo's argument
  // parser would refuse it as ambiguous (or take it for a flag of its own).
  const projectArgs = project.name.startsWith('-') ? [`--project=${project.name}`] : ['--project', project.name];
  const args = ['mcp', ...(isFirst ? [] : projectArgs), ...flags];
  // On Windows an npm-installed command is a .cmd shim, which these apps start only through `cmd /c`: cmd.exe reads
  // the line again, and the shim's %* once more, where & | < > ^ % ! ( ) and quotes act. No quoting survives all of
  // those readings for every name, so the project goes by its id (hex digits), and every word is inert to them.
  const windows = ['/c', MNEMO_COMMAND, 'mcp', ...(isFirst ? [] : ['--project-id', project.id]), ...flags];
  const json = (command: string, list: string[]) => JSON.stringify({ mcpServers: { [server]: { command, args: list } } }, null, 2);
  // For every folder Claude Code runs in (the user's scope): this memory is the user's, not one repository's.
  const claudeCode = (words: string[]) => `claude mcp add --scope user ${shellWord(server)} -- ${words.map(shellWord).join(' ')}`;
  // Typed in the user's shell, which may be fish: there a backslash inside single quotes still escapes a backslash
  // or a quote, so 'a\\b' would reach mnemo as a\b. A name with a backslash goes by its id there, as on Windows.
  const shellArgs = project.name.includes('\\') ? ['mcp', '--project-id', project.id, ...flags] : args;
  const configs: Record<ConfigTarget, string> = {
    // claude_desktop_config.json: the mcpServers entry (merge it into the file's own mcpServers).
    'claude-desktop': json(MNEMO_COMMAND, args),
    'claude-desktop-windows': json('cmd', windows),
    'claude-code': claudeCode([MNEMO_COMMAND, ...shellArgs]),
    // Typed in PowerShell or cmd.exe: every word is inert there too (the server name is letters, digits and dashes).
    'claude-code-windows': claudeCode(['cmd', ...windows]),
    // .cursor/mcp.json (in a project) or ~/.cursor/mcp.json (everywhere): the same mcpServers shape.
    cursor: json(MNEMO_COMMAND, args),
    'cursor-windows': json('cmd', windows),
  };
  return { project: project.id, projectName: project.name, server, configs };
}
