import readline from 'node:readline';
import type { Writable } from 'node:stream';
import { Vault } from '../core/vault/vault';
import { VaultError } from '../core/vault/types';
import { requireStrongPassphrase } from '../core/passphrase-strength';
import { defaultStateDir } from '../core/app-paths';
import { createMemoryHandlers } from '../core/memory/handlers';
import { rolledBackResult, runMemoryCommand } from '../core/memory/run';
import { validateMemoryPath } from '../core/memory/paths';
import { loadSettings } from '../core/chat/settings-store';
import { Exit, type CliCommandContext } from './context';
import { tc, type CliKey } from './i18n';
import type { CliIo } from './main';
import { exportCommand, importCommand, backupCommand } from './transfer';
import { checkReviewArgs, reviewCommand } from './review';
import { checkDevicesArgs, devicesCommand } from './devices';
import { checkHistoryArgs, historyCommand, versionFlag } from './history';
import { checkProjectsArgs, conversationsCommand, exportConversationCommand, modelsCommand, projectsCommand, projectVault } from './projects';

/** The flags every command may look at (already parsed by main). */
export interface Flags {
  plaintext?: boolean | undefined;
  overwrite?: boolean | undefined;
  once?: string | undefined;
  conversation?: string | undefined;
  'kdf-ops'?: string | undefined;
  'kdf-mem'?: string | undefined;
  'allow-weak'?: boolean | undefined;
  /** The project (by name) whose memory and conversations a command works in; default the first. */
  project?: string | undefined;
  yes?: boolean | undefined;
  temporary?: boolean | undefined;
  /** chat: carry on the reply the round limit stopped in --conversation. */
  continue?: boolean | undefined;
  /** chat: files to attach to the message (repeatable). */
  attach?: string[] | undefined;
  refresh?: boolean | undefined;
  /** review: the memory to mark reviewed. */
  mark?: string | undefined;
  /** review: mark everything listed. */
  all?: boolean | undefined;
  /** cat: print this version (its number in `mnemo history`) instead of the current text. */
  version?: string | undefined;
  /** verify: seconds to wait for files still arriving from other computers. */
  wait?: string | undefined;
}

export interface RunExtras {
  rolledBack: boolean;
  /** The passphrase that unlocked the vault (passwd checks it again before re-wrapping); '' after a recovery-key unlock. */
  currentPassphrase: string;
  /** True when --recovery-key-file unlocked the vault instead of the passphrase. */
  viaRecoveryKey: boolean;
  newPassphrase: () => Promise<string>;
}

interface CommandSpec {
  /** Throws UsageError before the vault is touched. */
  checkArgs(args: string[], flags: Flags): void;
  run(ctx: CliCommandContext, flags: Flags, extras: RunExtras): Promise<number>;
}

/** A usage mistake found by a command's own argument check. */
export class CommandUsageError extends Error {}

/** Checks the count of positional arguments; `what` says the command's rule (translated when it is broken). */
function positionals(min: number, max: number, what: CliKey) {
  return (args: string[]) => {
    if (args.length < min || args.length > max) throw new CommandUsageError(tc(what));
  };
}

export const COMMANDS = {
  memory: { checkArgs: positionals(0, 0, 'cli:args.memory'), run: memoryCommand },
  ls: { checkArgs: positionals(0, 1, 'cli:args.ls'), run: lsCommand },
  cat: {
    checkArgs(args: string[], flags: Flags) {
      positionals(1, 1, 'cli:args.cat')(args);
      versionFlag(flags);
    },
    run: catCommand,
  },
  history: { checkArgs: checkHistoryArgs, run: historyCommand },
  verify: {
    checkArgs(args: string[], flags: Flags) {
      positionals(0, 0, 'cli:args.verify')(args);
      waitFlag(flags);
    },
    run: verifyCommand,
  },
  passwd: {
    checkArgs(args: string[], flags: Flags) {
      positionals(0, 0, 'cli:args.passwd')(args);
      kdfFlags(flags);
    },
    run: passwdCommand,
  },
  rotate: { checkArgs: positionals(0, 0, 'cli:args.rotate'), run: rotateCommand },
  'recovery-key': { checkArgs: positionals(0, 0, 'cli:args.recoveryKey'), run: recoveryKeyCommand },
  'accept-rollback': { checkArgs: positionals(0, 0, 'cli:args.acceptRollback'), run: acceptRollbackCommand },
  export: {
    checkArgs(args: string[], flags: Flags) {
      positionals(1, 1, 'cli:args.export')(args);
      if (!flags.plaintext) {
        throw new CommandUsageError(tc('cli:args.exportPlaintext'));
      }
    },
    run: exportCommand,
  },
  import: { checkArgs: positionals(1, 1, 'cli:args.import'), run: importCommand },
  backup: { checkArgs: positionals(1, 1, 'cli:args.backup'), run: backupCommand },
  // Loaded on demand: the chat brings in the Anthropic SDK, which no other command needs.
  chat: { checkArgs: positionals(0, 0, 'cli:args.chat'), run: async (ctx, flags) => (await import('./chat')).chatCommand(ctx, flags) },
  projects: { checkArgs: checkProjectsArgs, run: projectsCommand },
  conversations: { checkArgs: positionals(0, 0, 'cli:args.conversations'), run: conversationsCommand },
  models: { checkArgs: positionals(0, 0, 'cli:args.models'), run: modelsCommand },
  review: { checkArgs: checkReviewArgs, run: reviewCommand },
  devices: { checkArgs: checkDevicesArgs, run: devicesCommand },
  'export-conversation': { checkArgs: positionals(1, 2, 'cli:args.exportConversation'), run: exportConversationCommand },
} satisfies Record<string, CommandSpec>;
export type CommandName = keyof typeof COMMANDS;

/** Commands that need the passphrase itself (to re-wrap a new key or open a copy), not the recovery key. */
export const NEEDS_PASSPHRASE: ReadonlySet<string> = new Set(['rotate', 'recovery-key', 'backup']);
/** Commands that only read: they open the vault read-only and never change a byte or an mtime in its folder. */
export const READ_ONLY: ReadonlySet<string> = new Set(['verify', 'ls', 'cat', 'history', 'export', 'backup', 'conversations', 'export-conversation']);
/** Commands that hold the vault's lock per call, not for the whole run (OpenOptions `lockPerCall`). */
export const PER_CALL: ReadonlySet<string> = new Set(['memory']);
/** Commands that still run on a vault reported as rolled back (each says so itself). */
export const RUN_WHEN_ROLLED_BACK: ReadonlySet<string> = new Set(['accept-rollback', 'verify', 'memory']);

/** Writes and waits until the stream has taken the bytes, so an answer is never buffered past a crash. */
export function writeLine(out: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => out.write(text + '\n', (err) => (err ? reject(err) : resolve())));
}

/** `mnemo init`: create the vault, print the recovery key once. */
export async function initCommand(
  dir: string,
  args: string[],
  flags: Flags,
  io: CliIo,
  passphrase: (confirm: boolean) => Promise<string>,
): Promise<number> {
  if (args.length) throw new CommandUsageError(tc('cli:args.init'));
  const kdf = kdfFlags(flags);
  // A vault, a damaged one (exit 4) or a folder holding anything else is refused before the passphrase is asked.
  try {
    await Vault.mayCreateIn(dir);
  } catch (e) {
    if (!(e instanceof VaultError && e.code === 'ALREADY_EXISTS')) throw e;
    io.stderr.write(`mnemo: ${tc('cli:vault.exists', { dir })}\n`);
    return Exit.FAILED;
  }
  const pass = await passphrase(true);
  if (!flags['allow-weak']) await requireStrongPassphrase(pass);
  const { vault, recoveryKey } = await Vault.create(dir, pass, { stateDir: defaultStateDir(io.env), ...(kdf ? { kdf } : {}) });
  try {
    io.stderr.write(`${tc('cli:vault.created', { dir })}\n`);
    await writeLine(io.stdout, recoveryKey);
  } finally {
    await vault.close();
  }
  return Exit.OK;
}

/** The Argon2id cost given with --kdf-ops/--kdf-mem, if any (a usage error outside the bounds). */
export function kdfFlags(flags: Flags): { opslimit: number; memlimit: number } | undefined {
  const ops = flags['kdf-ops'];
  const mem = flags['kdf-mem'];
  if (ops === undefined && mem === undefined) return undefined;
  const opslimit = Number(ops ?? 3);
  const memMiB = Number(mem ?? 256);
  if (!Number.isInteger(opslimit) || opslimit < 2 || opslimit > 10) throw new CommandUsageError(tc('cli:args.kdfOps'));
  if (!Number.isInteger(memMiB) || memMiB < 64 || memMiB > 1024) throw new CommandUsageError(tc('cli:args.kdfMem'));
  return { opslimit, memlimit: memMiB * 1024 * 1024 };
}

/**
 * `mnemo memory`: one memory-tool call per input line, answered only once it
 * is durable. Each line runs holding the vault (caught up with what others
 * wrote), which is let go before the answer is written, so other processes
 * take their turn between lines.
 */
async function memoryCommand(ctx: CliCommandContext, flags: Flags, extras: RunExtras): Promise<number> {
  const settings = await loadSettings(ctx.vault);
  const handlers = createMemoryHandlers(await projectVault(ctx, flags), { guardMode: () => settings.guardMode, source: 'cli' });
  // Claude must not build on an older copy of its memory without the user deciding to.
  if (extras.rolledBack) return serveMemoryLines(ctx, async () => rolledBackResult());
  // The vault held too long by another process (IN_USE), or its keys changed there (LOCKED): this line's answer says so.
  return serveMemoryLines(ctx, (input) => ctx.vault.hold(() => runMemoryCommand(handlers, input)).catch(unheld));
}

/**
 * `mnemo memory`'s loop, whoever answers: one memory-tool call per input line (JSON), one JSON answer per line,
 * written only once `answer` has made the call durable.
 */
export async function serveMemoryLines(io: Pick<CliCommandContext, 'stdin' | 'stdout'>, answer: (input: unknown) => Promise<{ content: string; is_error: boolean }>): Promise<number> {
  const lines = readline.createInterface({ input: io.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let input: unknown;
    try {
      input = JSON.parse(line);
    } catch {
      await writeLine(io.stdout, JSON.stringify({ content: 'Error: the input line is not valid JSON', is_error: true }));
      continue;
    }
    const result = await answer(input);
    await writeLine(io.stdout, JSON.stringify({ content: result.content, is_error: result.is_error }));
  }
  return Exit.OK;
}

/** A memory command's answer when the vault could not be held for it. */
function unheld(e: unknown): { content: string; is_error: boolean } {
  if (e instanceof VaultError) return { content: `Error: ${e.message}`, is_error: true };
  throw e;
}

async function lsCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const vault = await projectVault(ctx, flags);
  const dir = validateMemoryPath(ctx.argv[0] ?? '/memories');
  // A project that never wrote a memory has an empty /memories, not a missing one.
  const meta = vault.memory.stat(dir) ?? (dir === '/memories' ? { kind: 'dir' as const, path: dir, created: 0, modified: 0 } : undefined);
  if (!meta) {
    ctx.stderr.write(`mnemo: ${tc('cli:memory.notFound', { path: dir })}\n`);
    return Exit.FAILED;
  }
  const entries = meta.kind === 'dir' ? vault.memory.list(dir, Infinity) : [meta];
  for (const e of entries) {
    const size = e.kind === 'file' ? String(e.size) : '-';
    const name = e.kind === 'dir' ? `${e.path}/` : e.path;
    await writeLine(ctx.stdout, `${size.padStart(9)}  ${new Date(e.modified).toISOString()}  ${name}`);
  }
  return Exit.OK;
}

async function catCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const vault = await projectVault(ctx, flags);
  const path = validateMemoryPath(ctx.argv[0]);
  const version = versionFlag(flags);
  // An old version (of a memory that may be deleted since): read whole, authenticated, before anything is printed.
  if (version !== undefined) return print(ctx, await vault.readVersion(path, version));
  const meta = vault.memory.stat(path);
  if (!meta) {
    ctx.stderr.write(`mnemo: ${tc('cli:memory.notFound', { path })}\n`);
    return Exit.FAILED;
  }
  if (meta.kind !== 'file') {
    ctx.stderr.write(`mnemo: ${tc('cli:memory.isDirectory', { path })}\n`);
    return Exit.FAILED;
  }
  // Decrypt and authenticate everything before printing anything: a damaged memory prints nothing.
  return print(ctx, await vault.memory.readFile(path));
}

async function print(ctx: CliCommandContext, text: string): Promise<number> {
  await new Promise<void>((resolve, reject) => ctx.stdout.write(text, (err) => (err ? reject(err) : resolve())));
  return Exit.OK;
}

/** `verify --wait SECONDS`: how long to wait for files still arriving from other computers (0 to 3600; 0 without it). */
function waitFlag(flags: Flags): number {
  if (flags.wait === undefined) return 0;
  if (!/^(0|[1-9][0-9]{0,3})$/.test(flags.wait) || Number(flags.wait) > 3600) throw new CommandUsageError(tc('cli:args.verifyWait'));
  return Number(flags.wait);
}

async function verifyCommand(ctx: CliCommandContext, flags: Flags, extras: RunExtras): Promise<number> {
  const wait = waitFlag(flags);
  let report = await ctx.vault.verify();
  // A vault another computer writes: read its folder again each second while something is still arriving.
  const ingest = (ctx.vault as Partial<Pick<Vault, 'ingest'>>).ingest?.bind(ctx.vault);
  for (const until = Date.now() + wait * 1000; report.waiting?.length && ingest && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 1000));
    await ingest();
    report = await ctx.vault.verify();
  }
  const problems = [...report.problems];
  if (extras.rolledBack && !problems.some((p) => /roll/i.test(p))) {
    problems.unshift('vault: rolled back: older than the newest generation this device has seen');
  }
  for (const p of problems) await writeLine(ctx.stdout, p);
  // Files another computer wrote that the sync engine has not brought whole yet ("waiting for N files from device …"): not damage.
  for (const w of report.waiting ?? []) await writeLine(ctx.stdout, w);
  if (problems.length) return Exit.DAMAGED;
  if (wait && report.waiting?.length) {
    ctx.stderr.write(`mnemo: ${tc('cli:vault.stillWaiting', { seconds: wait })}\n`);
    return Exit.FAILED;
  }
  await writeLine(ctx.stdout, 'ok: the header, manifest, journal and every blob authenticate');
  return Exit.OK;
}

async function passwdCommand(ctx: CliCommandContext, flags: Flags, extras: RunExtras): Promise<number> {
  const kdf = kdfFlags(flags);
  const next = await extras.newPassphrase();
  if (!flags['allow-weak']) await requireStrongPassphrase(next);
  if (extras.viaRecoveryKey) await ctx.vault.setPassphrase(next, kdf);
  else await ctx.vault.changePassphrase(extras.currentPassphrase, next, kdf);
  ctx.stderr.write(`${tc('cli:vault.passwd')}\n`);
  return Exit.OK;
}

/** `mnemo rotate`: a new master key, everything re-encrypted; prints the new recovery key once. */
async function rotateCommand(ctx: CliCommandContext, _flags: Flags, extras: RunExtras): Promise<number> {
  const recoveryKey = await ctx.vault.rotateKeys(extras.currentPassphrase);
  ctx.stderr.write(`${tc('cli:vault.rotated')}\n`);
  await writeLine(ctx.stdout, recoveryKey);
  return Exit.OK;
}

/** `mnemo recovery-key`: a new recovery key that revokes the old one; printed once. */
async function recoveryKeyCommand(ctx: CliCommandContext, _flags: Flags, extras: RunExtras): Promise<number> {
  const recoveryKey = await ctx.vault.newRecoveryKey(extras.currentPassphrase);
  ctx.stderr.write(`${tc('cli:vault.newRecoveryKey')}\n`);
  await writeLine(ctx.stdout, recoveryKey);
  return Exit.OK;
}

/** `mnemo accept-rollback`: take the vault as it is now, after a reported rollback. */
async function acceptRollbackCommand(ctx: CliCommandContext, _flags: Flags, extras: RunExtras): Promise<number> {
  if (!extras.rolledBack) {
    ctx.stderr.write(`${tc('cli:vault.notRolledBack')}\n`);
    return Exit.OK;
  }
  await ctx.vault.acceptRollback();
  ctx.stderr.write(`${tc('cli:vault.acceptedRollback')}\n`);
  return Exit.OK;
}

