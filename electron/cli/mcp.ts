/**
 * `mnemo mcp [--vault DIR] [--project NAME | --project-id ID] [--read-only]`: the memory as an
 * MCP server on stdio, for Claude Desktop, Claude Code, Cursor and other MCP
 * clients (core/mcp/server.ts).
 *
 * stdin and stdout belong to the MCP stream: nothing is ever asked on stdin
 * (the passphrase comes from MNEMO_PASSPHRASE or --passphrase-file, or the
 * unlocked app serves), and nothing but MCP frames is written to stdout (logs
 * go to stderr, and never a memory's text or a secret).
 */
import packageJson from '../../package.json';
import type { MemoryBackend } from '../core/mcp/backend';
import { connectApp as connectApp_ } from '../core/mcp/channel-client';
import { createRouter } from '../core/mcp/router';
import { createMemoryServer } from '../core/mcp/server';
import { BoundedStdioTransport } from '../core/mcp/stdio';
import { createVaultBackend, VaultUnavailable, type VaultSession } from '../core/mcp/vault-backend';
import { defaultStateDir } from '../core/app-paths';
import { Vault } from '../core/vault/vault';
import { VaultError } from '../core/vault/types';
import { ProjectId } from '../shared/projects';
import { CommandUsageError, type Flags } from './commands';
import { vaultIdIn } from './memory-app';
import { Exit } from './context';
import type { CliIo } from './main';
import { PassphraseUnavailable, readPassphrase } from './passphrase';
import { tc } from './i18n';

export interface McpFlags extends Flags {
  'read-only'?: boolean | undefined;
  'passphrase-file'?: string | undefined;
  'recovery-key-file'?: string | undefined;
  /** The project by its id (the Windows configurations use it: a name can hold characters cmd.exe acts on). */
  'project-id'?: string | undefined;
}

/** Checks `mcp`'s arguments before anything starts. */
export function checkMcpArgs(args: string[], flags: McpFlags): void {
  if (args.length) throw new CommandUsageError(tc('cli:args.mcpPositional'));
  if (flags['recovery-key-file']) throw new CommandUsageError(tc('cli:args.mcpRecoveryKey'));
  const id = flags['project-id'];
  if (id !== undefined && flags.project !== undefined) throw new CommandUsageError(tc('cli:args.mcpProjectBoth'));
  if (id !== undefined && !ProjectId.safeParse(id).success) throw new CommandUsageError(tc('cli:args.mcpProjectId'));
}

/**
 * Serves until the client closes stdin (then every call it sent is still made) or a signal asks to stop (then
 * the call running is finished), closes the vault and returns 0.
 */
export async function mcpCommand(dir: string, args: string[], flags: McpFlags, io: CliIo): Promise<number> {
  checkMcpArgs(args, flags);
  const readOnly = flags['read-only'] === true;
  const log = (line: string) => io.stderr.write(`mnemo mcp: ${line}\n`);
  const stateDir = defaultStateDir(io.env);
  /** Why the app last refused this server (MCP access off, no such project…), until it is asked again. */
  let refusal: string | undefined;
  const restoreConsole = consoleToStderr(io);
  // Read at each write, once the client has said its name at initialize (the server is made below).
  const clientName = (): string => server.clientName();

  const vaultBackend = createVaultBackend({
    readOnly,
    project: flags.project,
    projectId: flags['project-id'],
    client: clientName,
    log,
    passphrase: () => passphrase(io, flags),
    appRefusal: () => refusal,
    async open(): Promise<VaultSession> {
      if (!(await Vault.exists(dir))) throw new VaultError('NO_VAULT', 'There is no vault here.');
      // Held only while a call runs, so the app and other servers are never kept out; `--read-only` is kept by
      // the backend (a vault held per call is opened for changes: catching up may cut a torn tail).
      const vault = await Vault.open(dir, { stateDir, lockPerCall: true });
      return { vault, hold: (fn) => vault.hold(fn) };
    },
  });
  // Set while the unlocked app last said its MCP access is off: the user said other apps have no access while it
  // runs, so calls get that answer rather than going round the app to the vault (or hearing it is "in use").
  let accessOff: string | undefined;
  // The running, unlocked app serves when it answers: it stays the one holder (live window, approvals, review inbox).
  const connectApp = async (): Promise<MemoryBackend | undefined> => {
    refusal = undefined;
    const vaultId = await vaultIdIn(dir);
    accessOff = undefined;
    if (vaultId === undefined) return undefined;
    return connectApp_({
      stateDir,
      vaultId,
      via: 'mcp',
      client: clientName(),
      ...(flags.project !== undefined ? { project: flags.project } : {}),
      ...(flags['project-id'] !== undefined ? { projectId: flags['project-id'] } : {}),
      readOnly,
      onRefused: (r) => {
        refusal = r.message;
        if (r.code === 'MCP_OFF') accessOff = r.message;
        log(`the Mnemo app refused the connection: ${r.message}`);
      },
      onSlow: () => log('the Mnemo app did not answer on its channel in time; this call opens the vault directly'),
    });
  };
  const offError = () => new VaultUnavailable(accessOff!, false);
  const unlessOff: MemoryBackend = {
    ...vaultBackend,
    call: (input) => (accessOff ? Promise.resolve({ content: `Error: ${accessOff}`, is_error: true }) : vaultBackend.call(input)),
    list: () => (accessOff ? Promise.reject(offError()) : vaultBackend.list()),
    read: (p) => (accessOff ? Promise.reject(offError()) : vaultBackend.read(p)),
  };
  const router = createRouter({ connectApp, openVault: async () => unlessOff, log });

  const transport = new BoundedStdioTransport(io.stdin, io.stdout, { log });
  const server = createMemoryServer({
    backend: router,
    readOnly,
    version: packageJson.version,
    guidance: () => vaultBackend.guidance(),
    beforeEach: () => transport.drained(),
    // The app is looked for as soon as the client has said its name: what the app lets it do shows in the tool's
    // annotations before the first call, and the app lists it in Settings.
    onInitialized: () => void router.prime().catch(() => undefined),
    log,
  });

  const onSignal = new Map<NodeJS.Signals, () => void>();
  // `finish`: every call already sent is still made (the client sent them, then closed its end, as `mnemo memory`'s
  // input may end); otherwise (a signal, a broken stream) only the call running is finished.
  const stopped = new Promise<{ why: string; finish: boolean }>((resolve) => {
    io.stdin.once('end', () => resolve({ why: 'the client closed the connection', finish: true }));
    io.stdin.once('close', () => resolve({ why: 'the client closed the connection', finish: true }));
    server.mcp.server.onclose = () => resolve({ why: 'the connection closed', finish: false });
    for (const signal of SIGNALS) {
      onSignal.set(signal, () => resolve({ why: `stopped by ${signal}`, finish: false }));
      process.once(signal, onSignal.get(signal)!);
    }
  });
  try {
    await server.mcp.connect(transport);
    log(`ready${readOnly ? ' (read-only)' : ''}${flags.project !== undefined ? `, project "${flags.project}"` : ''}${flags['project-id'] !== undefined ? `, project ${flags['project-id']}` : ''}`);
    // Started by hand in a terminal rather than by a client: say what it is waiting for (stdout stays MCP's).
    if (io.stdin.isTTY) log('this is an MCP server, waiting for an MCP client on standard input; an MCP client (Claude Desktop, Claude Code, Cursor) starts it. See mnemo mcp --help.');
    const { why, finish } = await stopped;
    log(`${why}; finishing`);
    // Closing the server cancels the calls still waiting (the SDK aborts their handlers, and drops the answer of one
    // that has finished but not been answered yet); the one running always finishes, durable, before the vault closes.
    // So when the client only closed its end, every call is made and every answer handed to stdout first.
    if (finish) {
      await server.settled();
      await transport.allAnswered();
    }
    await server.close();
    await server.settled();
    await router.close();
    return Exit.OK;
  } finally {
    for (const [signal, listener] of onSignal) process.off(signal, listener);
    restoreConsole();
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The passphrase from MNEMO_PASSPHRASE or --passphrase-file; never a prompt (stdin is the MCP stream). */
async function passphrase(io: CliIo, flags: McpFlags): Promise<string> {
  try {
    return await readPassphrase({ env: io.env, envName: 'MNEMO_PASSPHRASE', file: flags['passphrase-file'], tty: undefined, prompt: '' });
  } catch (e) {
    if (!(e instanceof PassphraseUnavailable)) throw e;
    const why = flags['passphrase-file'] ? 'the passphrase file given with --passphrase-file cannot be read or is empty' : 'this server was given no passphrase';
    throw new VaultUnavailable(
      `Mnemo could not open your memory: the Mnemo app is not running unlocked, and ${why}. Unlock the Mnemo app, or set MNEMO_PASSPHRASE (or --passphrase-file FILE) in this MCP server's configuration.`,
      true,
    );
  }
}

/**
 * Sends console output to stderr while serving: stdout carries MCP frames
 * only, and one stray line from any library would break the client's stream.
 */
function consoleToStderr(io: CliIo): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...parts: unknown[]) => void io.stderr.write(`${parts.map(String).join(' ')}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => Object.assign(console, saved);
}
