import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import { defaultStateDir, defaultVaultDir, requestedVaultDir } from '../core/app-paths';
import { MemoryPathError } from '../core/memory/paths';
import { moveAsidePreProjectsMemory } from '../core/projects/legacy';
import { ReviewInbox } from '../core/review/inbox';
import { Vault } from '../core/vault/vault';
import { VaultError } from '../core/vault/types';
import { Exit, type CliCommandContext } from './context';
import { memoryThroughApp } from './memory-app';
import { readPassphrase, PassphraseUnavailable } from './passphrase';
import { mcpUsage, usage as usageText } from './usage';
import { sayCli, tc, useCliLanguage } from './i18n';
import { COMMANDS, CommandUsageError, initCommand, NEEDS_PASSPHRASE, PER_CALL, READ_ONLY, RUN_WHEN_ROLLED_BACK, type CommandName } from './commands';

export interface CliIo {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

const OPTIONS = {
  vault: { type: 'string' },
  'passphrase-file': { type: 'string' },
  'recovery-key-file': { type: 'string' },
  'new-passphrase-file': { type: 'string' },
  'kdf-ops': { type: 'string' },
  'kdf-mem': { type: 'string' },
  plaintext: { type: 'boolean' },
  'allow-weak': { type: 'boolean' },
  overwrite: { type: 'boolean' },
  once: { type: 'string' },
  conversation: { type: 'string' },
  project: { type: 'string' },
  'project-id': { type: 'string' },
  'read-only': { type: 'boolean' },
  yes: { type: 'boolean' },
  temporary: { type: 'boolean' },
  continue: { type: 'boolean' },
  attach: { type: 'string', multiple: true },
  refresh: { type: 'boolean' },
  mark: { type: 'string' },
  version: { type: 'string' },
  wait: { type: 'string' },
  all: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Parsed = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;

/**
 * Runs one `mnemo` invocation and returns its exit code. Everything goes
 * through `io`, so tests run the CLI in-process exactly as a user would.
 */
/** True when `args` name a command that may change the vault (so it must run to its end, whatever happens to its output). */
export function mayWrite(args: string[]): boolean {
  try {
    const [command] = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true }).positionals;
    return command !== undefined && command !== 'help' && !READ_ONLY.has(command);
  } catch {
    return false;
  }
}

export async function runCli(args: string[], io: CliIo): Promise<number> {
  // Everything said to people from here on is in the language of the POSIX locale (LC_ALL, LC_MESSAGES, LANG).
  await useCliLanguage(io.env);
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help || command === 'help') {
    // In the user's language: `mnemo ls --help`, the command's own; `mnemo mcp --help` and `mnemo help mcp`: the MCP
    // server's own help; the rest, the whole usage.
    const about = command === 'help' ? rest[0] : command;
    io.stdout.write(about === 'mcp' ? mcpUsage() : command === 'ls' && parsed.values.help ? await (await import('./i18n')).lsHelp(io.env) : usageText());
    return Exit.OK;
  }
  if (!command) return usage(io, tc('cli:args.noCommand'));
  if (command !== 'init' && command !== 'mcp' && !(command in COMMANDS)) return usage(io, tc('cli:args.unknownCommand', { command }));

  const dir = requestedVaultDir(parsed.values.vault, io.env) ?? defaultVaultDir(io.env);
  try {
    // The MCP server opens the vault its own way (at its first call, never prompting); loaded only when asked for.
    if (command === 'mcp') return await (await import('./mcp')).mcpCommand(dir, rest, parsed.values, io);
    if (command === 'init') return await initCommand(dir, rest, parsed.values, io, (confirm) => passphrase(io, parsed, 'MNEMO_PASSPHRASE', confirm));
    const spec = COMMANDS[command as CommandName];
    spec.checkArgs(rest, parsed.values);
    const keyFile = parsed.values['recovery-key-file'];
    if (keyFile && NEEDS_PASSPHRASE.has(command)) throw new CommandUsageError(tc('cli:args.needsPassphrase', { command }));
    if (!(await Vault.exists(dir))) {
      io.stderr.write(`mnemo: ${tc('cli:vault.none', { dir })}\n`);
      return Exit.FAILED;
    }
    // An unlocked app holds the vault for its session: `memory` then sends its lines to the app.
    if (command === 'memory') {
      const served = await memoryThroughApp(dir, parsed.values.project, io);
      if (served !== undefined) return served;
    }
    // `memory` holds the vault per call (one input line), so several of it, `mnemo mcp` and the locked app take turns.
    const vault = await Vault.open(dir, { stateDir: defaultStateDir(io.env), readOnly: READ_ONLY.has(command), lockPerCall: PER_CALL.has(command) });
    try {
      const currentPassphrase = keyFile ? '' : await passphrase(io, parsed, 'MNEMO_PASSPHRASE', false);
      const report = await (keyFile ? readRecoveryKey(keyFile).then((k) => vault.unlockWithRecoveryKey(k)) : vault.unlock(currentPassphrase)).catch(cannotUnlock);
      // What the unlock found to tell (this computer's own files older than it wrote, keys changed elsewhere, …).
      for (const [i, notice] of (report.notices ?? []).entries()) io.stderr.write(`mnemo: ${sayCli({ message: notice, ...report.noticeKeys?.[i] })}\n`);
      if (report.rolledBack) {
        io.stderr.write(`mnemo: ${tc('cli:vault.rolledBack')}\n`);
        if (!RUN_WHEN_ROLLED_BACK.has(command)) return Exit.DAMAGED;
      }
      // A pre-projects memory in the projects' folder breaks every project but the first: move it aside, and say so.
      const moved = READ_ONLY.has(command) || report.rolledBack ? undefined : await moveAsidePreProjectsMemory(vault);
      if (moved) io.stderr.write(`mnemo: ${sayCli({ message: moved.text, key: moved.key, params: moved.params })}\n`);
      const ctx: CliCommandContext = { argv: rest, vault, stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, env: io.env };
      // Renames by `memory` and `chat` keep the review inbox right; its notes are written before the vault closes.
      const review = READ_ONLY.has(command) ? undefined : new ReviewInbox(vault);
      const stopReview = review?.track();
      try {
        return await spec.run(ctx, parsed.values, {
          rolledBack: report.rolledBack,
          currentPassphrase,
          viaRecoveryKey: Boolean(keyFile),
          newPassphrase: () => passphrase(io, parsed, 'MNEMO_NEW_PASSPHRASE', true, parsed.values['new-passphrase-file']),
        });
      } finally {
        stopReview?.();
        await review?.idle();
      }
    } finally {
      await vault.close();
    }
  } catch (err) {
    return failure(io, err);
  }
}

function passphrase(io: CliIo, parsed: Parsed, envName: string, confirm: boolean, file = parsed.values['passphrase-file']): Promise<string> {
  const isNew = envName === 'MNEMO_NEW_PASSPHRASE';
  return readPassphrase({
    env: io.env,
    envName,
    file,
    confirm,
    prompt: isNew ? tc('cli:passphrase.promptNew') : tc('cli:passphrase.prompt'),
    tty: io.stdin.isTTY ? { input: io.stdin, output: io.stderr } : undefined,
  });
}

async function readRecoveryKey(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch {
    throw new PassphraseUnavailable(tc('cli:passphrase.recoveryKeyFileUnreadable'));
  }
}

/** A malformed or mistyped recovery key means the vault cannot be unlocked: exit 3 like a wrong one. */
function cannotUnlock(err: unknown): never {
  if (err instanceof VaultError && err.code === 'INVALID') throw err.with({ code: 'BAD_PASSPHRASE' });
  throw err;
}

function usage(io: CliIo, message: string): number {
  io.stderr.write(`mnemo: ${message}\n\n${usageText()}`);
  return Exit.USAGE;
}

/** Maps an error to its exit code and a message that names no secret and no OS detail. */
function failure(io: CliIo, err: unknown): number {
  if (err instanceof CommandUsageError) return usage(io, err.message);
  if (err instanceof MemoryPathError) return usage(io, err.local ? sayCli({ message: err.local.text, key: err.local.key, params: err.local.params }) : err.message);
  if (err instanceof PassphraseUnavailable) {
    io.stderr.write(`mnemo: ${err.message}\n`);
    return Exit.CANNOT_UNLOCK;
  }
  if (err instanceof VaultError) {
    io.stderr.write(`mnemo: ${sayCli(err)}\n`);
    switch (err.code) {
      case 'BAD_PASSPHRASE':
      case 'BAD_HEADER':
        return Exit.CANNOT_UNLOCK;
      case 'DAMAGED':
      case 'ROLLED_BACK':
        return Exit.DAMAGED;
      default:
        return Exit.FAILED;
    }
  }
  // OS errors carry host paths and details that help nobody here; the code is enough to search for.
  const code = (err as { code?: unknown } | null)?.code;
  io.stderr.write(`mnemo: ${typeof code === 'string' ? tc('cli:vault.unexpectedCode', { code }) : tc('cli:vault.unexpected')}\n`);
  return Exit.FAILED;
}

