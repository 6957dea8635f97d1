/**
 * `mnemo review [--project NAME] [--mark PATH | --all]`: what Claude (or a
 * script through `mnemo memory`) changed in a project's memory since it was
 * last reviewed, and marking it reviewed.
 */
import { validateMemoryPath } from '../core/memory/paths';
import { ReviewInbox, reviewVault, type ReviewEntry } from '../core/review/inbox';
import { CommandUsageError, writeLine, type Flags } from './commands';
import { Exit, type CliCommandContext } from './context';
import { selectedProject } from './projects';
import { tc } from './i18n';

/** Checks `review` arguments before the vault is opened. */
export function checkReviewArgs(args: string[], flags: Flags): void {
  if (args.length) throw new CommandUsageError(tc('cli:args.reviewPositional'));
  if (flags.mark !== undefined && flags.all) throw new CommandUsageError(tc('cli:args.reviewBoth'));
}

// eslint-disable-next-line no-control-regex -- replacing control characters is the point
const field = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');

/** Who made the change: claude, cli, …, or an MCP client by its name, "Claude Code (MCP)". */
const who = (e: ReviewEntry) => (e.by.kind === 'mcp' ? `${field(e.by.client)} (MCP)` : e.by.kind);

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
  for (const e of entries) await writeLine(ctx.stdout, `${field(e.path)}\t${e.kind}\t${who(e)}`);
  return Exit.OK;
}
