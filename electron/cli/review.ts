/**
 * `mnemo review [--project NAME] [--mark PATH | --all]`: what Claude (or a
 * script through `mnemo memory`) changed in a project's memory since it was
 * last reviewed, and marking it reviewed. A vault several computers write also
 * lists its conflicts: `PATH conflict WHO edit|delete VERSION OTHERS COMPUTERS`
 * (tab-separated; VERSION the one that won or outlived the delete, OTHERS the
 * versions set aside or deleted, for `mnemo cat PATH --version N`).
 */
import { validateMemoryPath } from '../core/memory/paths';
import { ReviewInbox, reviewVault, type MarkItem, type ReviewEntry } from '../core/review/inbox';
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

/** What marking `e` takes: its path and version, and a conflict's id. */
const itemOf = (e: ReviewEntry): MarkItem => ({ path: e.path, version: e.version, ...(e.conflict ? { conflict: e.conflict.id } : {}) });

/** One line of the listing; a conflict's adds what it is, its versions and its computers. */
function lineOf(e: ReviewEntry): string {
  const head = `${field(e.path)}\t${e.kind}\t${who(e.by)}`;
  if (!e.conflict) return head;
  const c = e.conflict;
  return `${head}\t${c.what}\t${e.version}\t${c.versions.join(',') || '-'}\t${c.computers.map((n) => field(n)).join(', ') || '-'}`;
}

export async function reviewCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const project = await selectedProject(ctx, flags);
  const inbox = new ReviewInbox(reviewVault(ctx.vault));
  const entries = await inbox.list(project.id);
  if (flags.all) {
    const marked = entries.length ? await inbox.mark(project.id, entries.map(itemOf)) : 0;
    ctx.stderr.write(`${tc('cli:review.marked', { count: marked })}\n`);
    return Exit.OK;
  }
  if (flags.mark !== undefined) {
    const path = validateMemoryPath(flags.mark);
    // Everything listed at the path: its change and its conflicts.
    const here = entries.filter((e) => e.path === path);
    if (!here.length) {
      ctx.stderr.write(`mnemo: ${tc('cli:review.nothingAt', { path: field(path) })}\n`);
      return Exit.FAILED;
    }
    await inbox.mark(project.id, here.map(itemOf));
    for (const e of here) {
      const said = e.conflict ? tc('cli:review.markedConflict', { path: field(path) }) : tc('cli:review.markedPath', { path: field(path), version: e.version });
      ctx.stderr.write(`${said}\n`);
    }
    return Exit.OK;
  }
  for (const e of entries) await writeLine(ctx.stdout, lineOf(e));
  return Exit.OK;
}
