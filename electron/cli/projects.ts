/**
 * `mnemo projects`, `conversations`, `models` and `export-conversation`, and
 * `--project NAME`: which project's memory the memory commands work in.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Conversations, projectOf, type StoredConversation } from '../core/chat/conversations';
import { conversationMarkdown } from '../core/chat/export-markdown';
import { requireLiveConversation } from '../core/projects/live';
import { FIRST_PROJECT_ID, Projects, type Project } from '../core/projects/store';
import type { MemoryScope } from '../core/projects/scope';
import { VaultError, type VaultApi } from '../core/vault/types';
import { CommandUsageError, writeLine, type Flags } from './commands';
import { Exit, type CliCommandContext } from './context';
import { tc, type CliKey } from './i18n';
import { m } from '../core/i18n/message';

/** The project `--project NAME` names (case-insensitive), or the first project without it. */
export async function selectedProject(ctx: CliCommandContext, flags: Flags): Promise<Project> {
  const projects = new Projects(ctx.vault);
  return flags.project === undefined ? projects.require(FIRST_PROJECT_ID) : projects.byName(flags.project);
}

/** The vault as the selected project sees it: `/memories` is that project's memory. */
export async function projectVault(ctx: CliCommandContext, flags: Flags): Promise<VaultApi> {
  return new Projects(ctx.vault).memoryVault((await selectedProject(ctx, flags)).id);
}

/** The selected project's path mapping (import writes through the vault itself, so it maps paths on its own). */
export async function projectScope(ctx: CliCommandContext, flags: Flags): Promise<MemoryScope> {
  return new Projects(ctx.vault).memoryScope((await selectedProject(ctx, flags)).id);
}

/** One line of output: no tab, newline or other control character from a name or title can break its columns. */
// eslint-disable-next-line no-control-regex -- replacing control characters is the point
export const field = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');

const SUBCOMMANDS: Record<string, [number, CliKey]> = {
  list: [0, 'cli:args.projectsList'],
  create: [1, 'cli:args.projectsCreate'],
  rename: [2, 'cli:args.projectsRename'],
  delete: [1, 'cli:args.projectsDelete'],
  restore: [1, 'cli:args.projectsRestore'],
};

/** Checks `projects …` arguments before the vault is opened. */
export function checkProjectsArgs(args: string[], flags: Flags): void {
  const [sub = 'list', ...rest] = args;
  const spec = SUBCOMMANDS[sub];
  if (!spec) throw new CommandUsageError(tc('cli:args.projectsUnknown', { command: sub }));
  if (rest.length !== spec[0]) throw new CommandUsageError(tc(spec[1]));
  if (sub === 'delete' && !flags.yes) {
    throw new CommandUsageError(tc('cli:args.projectsDeleteYes', { name: rest[0] ?? '' }));
  }
}

/** `mnemo projects [list|create|rename|delete|restore]`. */
export async function projectsCommand(ctx: CliCommandContext): Promise<number> {
  const [sub = 'list', a = '', b = ''] = ctx.argv;
  const projects = new Projects(ctx.vault);
  switch (sub) {
    case 'create': {
      const p = await projects.create(a);
      ctx.stderr.write(`${tc('cli:projects.created', { name: field(p.name) })}\n`);
      return Exit.OK;
    }
    case 'rename': {
      const p = await projects.rename((await projects.byName(a)).id, b);
      ctx.stderr.write(`${tc('cli:projects.renamed', { name: field(p.name) })}\n`);
      return Exit.OK;
    }
    case 'delete': {
      const p = await projects.byName(a);
      await projects.delete(p.id);
      ctx.stderr.write(`${tc('cli:projects.deleted', { name: field(p.name) })}\n`);
      return Exit.OK;
    }
    case 'restore': {
      // Matched as byName matches live projects: NFC (a terminal may send an accent decomposed), trimmed, any case.
      const typed = a.normalize('NFC').trim().toLocaleLowerCase('en-US');
      const gone = (await projects.listDeleted()).filter((p) => p.name.toLocaleLowerCase('en-US') === typed);
      if (!gone.length) throw new VaultError('NOT_FOUND', m('errors:project.noDeletedNamed', { name: a }));
      const p = await projects.restore(gone.at(-1)!.id);
      ctx.stderr.write(`${tc('cli:projects.restored', { name: field(p.name) })}\n`);
      return Exit.OK;
    }
    default:
      for (const p of await projects.list()) await writeLine(ctx.stdout, `${field(p.name)}\t${p.id}`);
      return Exit.OK;
  }
}

/** `mnemo conversations [--project NAME]`: id, project and title, one a line, newest first. */
export async function conversationsCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  const projects = await new Projects(ctx.vault).list();
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const only = flags.project === undefined ? undefined : (await selectedProject(ctx, flags)).id;
  for (const c of await new Conversations(ctx.vault).list()) {
    const project = projectOf(c);
    // Conversations of a deleted project stay stored but out of sight, as in the app, until it is restored.
    if (!names.has(project) || (only !== undefined && project !== only)) continue;
    await writeLine(ctx.stdout, `${c.id}\t${field(names.get(project)!)}\t${field(c.title)}`);
  }
  return Exit.OK;
}

/** `mnemo models [--refresh]`: each model's id and context window, from the vault's copy (fetched when missing or asked). */
export async function modelsCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  // Loaded on demand: listing models brings in the Anthropic SDK, which the other commands do without.
  const { listModels } = await import('../core/chat/models');
  const list = await listModels(ctx.vault, { refresh: flags.refresh === true, env: ctx.env });
  for (const m of list.models) await writeLine(ctx.stdout, `${field(m.id)}\t${m.contextWindow}`);
  return Exit.OK;
}

/** `mnemo export-conversation ID [FILE]`: the conversation as Markdown, to FILE (which must not exist) or stdout. */
export async function exportConversationCommand(ctx: CliCommandContext): Promise<number> {
  const [id = '', file] = ctx.argv;
  const c = await liveConversation(ctx, id);
  if (!c) return Exit.FAILED;
  const markdown = conversationMarkdown(c);
  if (file === undefined) {
    await new Promise<void>((resolve, reject) => ctx.stdout.write(markdown, (err) => (err ? reject(err) : resolve())));
    return Exit.OK;
  }
  const target = path.resolve(file);
  try {
    await fs.writeFile(target, markdown, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
  } catch (err) {
    const exists = (err as { code?: unknown }).code === 'EEXIST';
    ctx.stderr.write(`mnemo: ${tc(exists ? 'cli:projects.cannotWriteExists' : 'cli:projects.cannotWrite', { file: target })}\n`);
    return Exit.FAILED;
  }
  ctx.stderr.write(`${tc('cli:projects.exported', { file: target })}\n`);
  return Exit.OK;
}

/**
 * A stored conversation by id for a command, or undefined after saying why:
 * there is none, or it is in a deleted project (hidden until it is restored).
 */
export async function liveConversation(ctx: CliCommandContext, id: string): Promise<StoredConversation | undefined> {
  try {
    return await requireLiveConversation(ctx.vault, id);
  } catch (e) {
    const hidden = e instanceof VaultError && /deleted project/.test(e.message);
    ctx.stderr.write(`mnemo: ${tc(hidden ? 'cli:projects.conversationInDeleted' : 'cli:projects.noConversation', { id: field(id) })}\n`);
    return undefined;
  }
}
