/**
 * Claude's memory tool (`memory_20250818`) served from the vault. Answers
 * match the SDK's reference `BetaLocalFilesystemMemoryTool` word for word,
 * except where DESIGN.md §4 asks us to be right where it is wrong. Every
 * command runs inside `vault.exclusive`, so the concurrent tool calls of one
 * turn are applied one after another and no edit is lost.
 */
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { GuardMode } from '../../shared/settings';
import type { ChangeSource, EntryMeta, MemoryOps, Provenance, VaultApi } from '../vault/types';
import { MemoryToolError, notFoundMessage, ROLLED_BACK_MESSAGE, toToolError, type ErrorContext } from './errors';
import { formatDirectoryView, formatFileView, MAX_LINES, numberLines } from './format';
import { guardPath, guardText, redactionNote } from './guard';
import { resolveLimits, sizeProblem, type MemoryLimits } from './limits';
import { isWithin, MEMORY_ROOT, MemoryPathError, parentPath, validateMemoryPath, validateMovedPaths } from './paths';
import { parseCommand, type MemoryCommandName } from './schema';
import { resolveViewRange } from './view-range';

/** What the chat UI is told after each successful command (before/after let it show a diff). */
export interface MemoryObservation {
  command: MemoryCommandName;
  path: string;
  newPath?: string;
  /** The file's text before the command (str_replace, insert, delete, rename of a file). */
  before?: string;
  /** The file's text after the command (create, str_replace, insert, rename of a file). */
  after?: string;
}

export interface MemoryHandlerOptions {
  /** Read on every write, so a settings change applies to the next tool call. */
  guardMode: () => GuardMode;
  limits?: Partial<MemoryLimits>;
  /** Who the vault records as the author of changes; 'claude' unless said otherwise. */
  source?: ChangeSource;
  /** Recorded with every version written and every deletion (e.g. Claude in which conversation and turn); defaults to `source`. */
  by?: Provenance;
  observe?: (e: MemoryObservation) => void;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Builds the six memory-tool handlers over `vault`. Pass the result to the
 * SDK's `betaMemoryTool`, or to `runMemoryCommand` for one call at a time.
 */
export function createMemoryHandlers(vault: VaultApi, opts: MemoryHandlerOptions): MemoryToolHandlers {
  const limits = resolveLimits(opts.limits);
  const source: ChangeSource = opts.source ?? 'claude';
  const by = opts.by ? { by: opts.by } : {};

  const observe = (o: MemoryObservation): void => {
    try {
      opts.observe?.(o);
    } catch {
      // A failing observer (a closed window, say) must not turn a committed change into a tool error.
    }
  };

  async function exclusive<T>(ctx: ErrorContext, fn: (ops: MemoryOps) => Promise<T>): Promise<T> {
    try {
      return await vault.exclusive((ops) => {
        // The alarm is sticky: an older copy is neither read nor changed until the user accepts it.
        if (vault.isRolledBack()) throw new MemoryToolError(ROLLED_BACK_MESSAGE);
        return fn(ops);
      });
    } catch (e) {
      throw toToolError(e, ctx);
    }
  }

  /** Runs the synchronous checks before the queue, with the same error translation. */
  function checked<T>(ctx: Omit<ErrorContext, 'path'> & { path?: string }, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw toToolError(e, { path: MEMORY_ROOT, ...ctx });
    }
  }

  return {
    async view(raw) {
      const { cmd, path } = checked({ command: 'view' }, () => {
        const cmd = parseCommand('view', raw);
        return { cmd, path: validateMemoryPath(cmd.path) };
      });
      const result = await exclusive({ command: 'view', path }, async (ops) => {
        const meta = statOf(ops, path);
        if (!meta) throw new MemoryToolError(notFoundMessage('view', path));
        // The reference ignores view_range on a directory; so do we.
        if (meta.kind === 'dir') return formatDirectoryView(path, ops.list(path, Infinity), limits.maxViewChars);
        const lines = (await ops.readFile(path)).split('\n');
        if (lines.length > MAX_LINES) {
          throw new MemoryToolError(`File ${path} has too many lines (${lines.length}). Maximum is ${MAX_LINES.toLocaleString('en-US')} lines.`);
        }
        const [first, last] = resolveViewRange(cmd.view_range, lines.length);
        return formatFileView(path, lines, first, last, limits.maxViewChars);
      });
      observe({ command: 'view', path });
      return result;
    },

    async create(raw) {
      const { path, guarded } = checked({ command: 'create' }, () => {
        const cmd = parseCommand('create', raw);
        const path = validateMemoryPath(cmd.path);
        const mode = opts.guardMode();
        guardPath(path, mode);
        return { path, guarded: guardText(cmd.file_text, mode) };
      });
      await exclusive({ command: 'create', path }, async (ops) => {
        if (statOf(ops, path)) throw new MemoryToolError(`File ${path} already exists`);
        checkAncestors(ops, path, 'create');
        const problem = sizeProblem(path, utf8Bytes(guarded.text), 0, ops.totalSize(), limits);
        if (problem) throw new MemoryToolError(problem);
        await ops.writeFile(path, guarded.text, { mode: 'create', source, ...by });
      });
      observe({ command: 'create', path, after: guarded.text });
      return `File created successfully at: ${path}${redactionNote(guarded.redacted)}`;
    },

    async str_replace(raw) {
      const { cmd, path, guarded } = checked({ command: 'str_replace' }, () => {
        const cmd = parseCommand('str_replace', raw);
        const path = validateMemoryPath(cmd.path);
        return { cmd, path, guarded: guardText(cmd.new_str, opts.guardMode()) };
      });
      const { old_str: oldStr } = cmd;
      const { before, after, snippet } = await exclusive({ command: 'str_replace', path }, async (ops) => {
        const meta = fileMeta(ops, path, 'str_replace');
        const before = await ops.readFile(path);
        if (oldStr === '') {
          throw new MemoryToolError(`No replacement was performed: old_str is empty. Give the exact text to replace in ${path}; use insert to add new lines.`);
        }
        const at = occurrences(before, oldStr);
        if (at.length === 0) {
          throw new MemoryToolError(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`);
        }
        if (at.length > 1) {
          const lines = [...new Set(at.map((i) => lineIndexAt(before, i) + 1))];
          throw new MemoryToolError(
            `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(', ')}. Please ensure it is unique`,
          );
        }
        const index = at[0] as number;
        const after = before.slice(0, index) + guarded.text + before.slice(index + oldStr.length);
        const problem = sizeProblem(path, utf8Bytes(after), meta.size, ops.totalSize(), limits);
        if (problem) throw new MemoryToolError(problem);
        await ops.writeFile(path, after, { mode: 'update', expectedVersion: meta.version, source, ...by });
        // Two lines of context either side of the line where the match began, as the reference shows.
        const changed = lineIndexAt(before, index);
        const newLines = after.split('\n');
        const start = Math.max(0, changed - 2);
        const snippet = numberLines(newLines.slice(start, Math.min(newLines.length, changed + 3)), start + 1);
        return { before, after, snippet };
      });
      observe({ command: 'str_replace', path, before, after });
      return (
        `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet.join('\n')}` +
        redactionNote(guarded.redacted)
      );
    },

    async insert(raw) {
      const { cmd, path, guarded } = checked({ command: 'insert' }, () => {
        const cmd = parseCommand('insert', raw);
        const path = validateMemoryPath(cmd.path);
        return { cmd, path, guarded: guardText(cmd.insert_text, opts.guardMode()) };
      });
      const { before, after } = await exclusive({ command: 'insert', path }, async (ops) => {
        const meta = fileMeta(ops, path, 'insert');
        const before = await ops.readFile(path);
        const lines = before.split('\n');
        const line = cmd.insert_line;
        if (!Number.isInteger(line) || line < 0 || line > lines.length) {
          throw new MemoryToolError(
            `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines.length}]`,
          );
        }
        lines.splice(line, 0, guarded.text.replace(/\n$/, ''));
        const after = lines.join('\n');
        const problem = sizeProblem(path, utf8Bytes(after), meta.size, ops.totalSize(), limits);
        if (problem) throw new MemoryToolError(problem);
        await ops.writeFile(path, after, { mode: 'update', expectedVersion: meta.version, source, ...by });
        return { before, after };
      });
      observe({ command: 'insert', path, before, after });
      return `The file ${path} has been edited.${redactionNote(guarded.redacted)}`;
    },

    async delete(raw) {
      const path = checked({ command: 'delete' }, () => validateMemoryPath(parseCommand('delete', raw).path));
      if (path === MEMORY_ROOT) throw new MemoryToolError('Cannot delete the /memories directory itself');
      const before = await exclusive({ command: 'delete', path }, async (ops) => {
        const meta = ops.stat(path);
        if (!meta) throw new MemoryToolError(notFoundMessage('delete', path));
        // The old text is read only for an observer (the chat's diff); without one, delete stays a pure index change.
        const before = meta.kind === 'file' && opts.observe ? await readIfIntact(ops, path) : undefined;
        await ops.remove(path, source, opts.by);
        return before;
      });
      observe({ command: 'delete', path, ...(before !== undefined ? { before } : {}) });
      return `Successfully deleted ${path}`;
    },

    async rename(raw) {
      const { oldPath, newPath } = checked({ command: 'rename' }, () => {
        const cmd = parseCommand('rename', raw);
        const oldPath = validateField('old_path', cmd.old_path);
        const newPath = validateField('new_path', cmd.new_path);
        if (oldPath === MEMORY_ROOT) throw new MemoryToolError('Cannot rename the /memories directory itself');
        guardPath(newPath, opts.guardMode());
        return { oldPath, newPath };
      });
      const text = await exclusive({ command: 'rename', path: oldPath, newPath }, async (ops) => {
        // The reference checks the destination first; keep its order so the same call gets the same answer.
        if (statOf(ops, newPath)) throw new MemoryToolError(`The destination ${newPath} already exists`);
        const meta = ops.stat(oldPath);
        if (!meta) throw new MemoryToolError(notFoundMessage('rename', oldPath));
        if (isWithin(newPath, oldPath)) {
          throw new MemoryToolError(`Cannot move ${oldPath} into itself: ${newPath} is inside ${oldPath}. Choose a destination outside it.`);
        }
        checkAncestors(ops, newPath, `move ${oldPath} to`);
        if (meta.kind === 'dir') validateMovedPaths(oldPath, newPath, ops.list(oldPath, Infinity).map((e) => e.path));
        const text = meta.kind === 'file' && opts.observe ? await readIfIntact(ops, oldPath) : undefined;
        await ops.rename(oldPath, newPath, source, opts.by);
        return text;
      });
      observe({ command: 'rename', path: oldPath, newPath, ...(text !== undefined ? { before: text, after: text } : {}) });
      return `Successfully renamed ${oldPath} to ${newPath}`;
    },
  };
}

/** A rename has two paths: say which one was refused. */
function validateField(field: string, path: string): string {
  try {
    return validateMemoryPath(path);
  } catch (e) {
    throw e instanceof MemoryPathError ? new MemoryPathError(`${field}: ${e.message}`) : e;
  }
}

/** The entry at `path`; the root always exists as a directory, even in a vault that never wrote it. */
function statOf(ops: MemoryOps, path: string): EntryMeta | undefined {
  return ops.stat(path) ?? (path === MEMORY_ROOT ? { kind: 'dir', path, created: 0, modified: 0 } : undefined);
}

/** The file at `path`, or the reference's error for a missing path or a directory. */
function fileMeta(ops: MemoryOps, path: string, command: MemoryCommandName) {
  const meta = statOf(ops, path);
  if (!meta) throw new MemoryToolError(notFoundMessage(command, path));
  if (meta.kind !== 'file') throw new MemoryToolError(`The path ${path} is not a file.`);
  return meta;
}

/** Refuses a new path whose parent chain runs through a file: nothing can be placed inside a file. */
function checkAncestors(ops: MemoryOps, path: string, verb: string): void {
  for (let dir = parentPath(path); dir !== MEMORY_ROOT; dir = parentPath(dir)) {
    const kind = ops.kind(dir);
    if (kind === 'file') {
      throw new MemoryToolError(`Cannot ${verb} ${path}: ${dir} is a file, not a directory, so nothing can be placed inside it.`);
    }
    if (kind === 'dir') return;
  }
}

/** The text of a file about to be deleted or moved; a damaged file can still be deleted or moved. */
async function readIfIntact(ops: MemoryOps, path: string): Promise<string | undefined> {
  try {
    return await ops.readFile(path);
  } catch {
    return undefined;
  }
}

/** Start offsets of every occurrence of `needle` in `text`, overlapping ones included (they are ambiguous too). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}

/** The 0-based line holding offset `index` of `text`. */
function lineIndexAt(text: string, index: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
