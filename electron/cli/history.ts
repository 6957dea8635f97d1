/**
 * `mnemo history PATH`: every version of a memory, newest first, one a line: number, time, who wrote it, and (a vault
 * several computers write) which computer. `mnemo cat PATH --version N` prints one of them (commands.ts).
 */
import { validateMemoryPath } from '../core/memory/paths';
import { CommandUsageError, writeLine, type Flags } from './commands';
import { Exit, type CliCommandContext } from './context';
import { tc } from './i18n';
import { field, projectVault } from './projects';
import { who } from './review';

/** Checks `history` arguments before the vault is opened. */
export function checkHistoryArgs(args: string[]): void {
  if (args.length !== 1) throw new CommandUsageError(tc('cli:args.history'));
}

/** A time as ISO 8601, or '-' for one no Date can hold (a record's time is any safe integer). */
export const isoTime = (ms: number) => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : '-');

/** The version number `--version` gives: a whole number from 1 (a usage error otherwise). */
export function versionFlag(flags: Flags): number | undefined {
  if (flags.version === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(flags.version)) throw new CommandUsageError(tc('cli:args.catVersion'));
  return Number(flags.version);
}

export async function historyCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const vault = await projectVault(ctx, flags);
  const path = validateMemoryPath(ctx.argv[0]);
  const versions = vault.versions(path);
  if (!versions.length) {
    ctx.stderr.write(`mnemo: ${tc('cli:memory.notFound', { path })}\n`);
    return Exit.FAILED;
  }
  // A computer by the name it was given; format 1 (no device) and the writes of a vault before it was shared: '-'.
  const names = new Map((await ctx.vault.devices()).map((d) => [d.id, d.name || d.id]));
  const device = (dev: string | undefined) => (!dev || dev === 'L' ? '-' : field(names.get(dev) ?? dev));
  for (const v of [...versions].reverse()) await writeLine(ctx.stdout, `${v.version}\t${isoTime(v.modified)}\t${who(v.by)}\t${device(v.device)}`);
  return Exit.OK;
}
