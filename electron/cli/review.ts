/**
 * `mnemo review [--project NAME] [--mark PATH | --all]`: what Claude (or a
 * script through `mnemo memory`) changed in a project's memory since it was
 * last reviewed, and marking it reviewed.
 */
import { validateMemoryPath } from '../core/memory/paths';
import { ReviewInbox, reviewVault } from '../core/review/inbox';
import type { Provenance } from '../core/vault/types';
import { CommandUsageError, writeLine, type Flags } from './commands';
import { Exit, type CliCommandContext } from './context';
import { field, selectedProject } from './projects';
import { tc } from './i18n';

/** Checks `review` arguments before the vault is opened. */
export function checkReviewArgs(args: string[], flags: Flags): void {
  if (args.length) throw new CommandUsageError(tc('cli:args.reviewPositional'));
  if (flags.mark !== undefined && flags.all) throw new CommandUsageError(tc('cli:args.reviewBoth'));
}


/** Who made a change: claude, cli, …, or an MCP client by its name, "Claude Code (MCP)"; '-' when not recorded. */
export const who = (by: Provenance | undefined) => (!by ? '-' : by.kind === 'mcp' ? `${field(by.client)} (MCP)` : by.kind);

export async function reviewCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const project = await selectedProject(ctx, flags);
  const inbox = new ReviewInbox(reviewVault(ctx.vault));
  const entries = await inbox.list(project.id);
  if (flags.all) {
    const marked = entries.length ? await inbox.mark(project.id, entries.map((e) => ({ path: e.path, version: e.version }))) : 0;
    ctx.stderr.write(`${tc('cli:review.marked', { count: marked })}\n`);
    return Exit.OK;
  }
  if (flags.mark !== undefined) {
    const path = validateMemoryPath(flags.mark);
    const entry = entries.find((e) => e.path === path);
    if (!entry) {
      ctx.stderr.write(`mnemo: ${tc('cli:review.nothingAt', { path: field(path) })}\n`);
      return Exit.FAILED;
    }
    await inbox.mark(project.id, [{ path, version: entry.version }]);
    ctx.stderr.write(`${tc('cli:review.markedPath', { path: field(path), version: entry.version })}\n`);
    return Exit.OK;
  }
  for (const e of entries) await writeLine(ctx.stdout, `${field(e.path)}\t${e.kind}\t${who(e.by)}`);
  return Exit.OK;
}
