/**
 * What a held memory change would do, for the approval card: the diff of an
 * edit, the files a delete removes. Read from the vault as it is now, so the
 * user judges the real effect rather than the text Claude sent.
 */
import { validateMemoryPath } from '../memory/paths';
import type { MemoryOps } from '../vault/types';

export interface ApprovalChange {
  /** The file before and after (create, str_replace, insert), when it can be worked out. */
  diff?: { before: string; after: string };
  /** What a delete removes: every file, and the text when it is one file. */
  removes?: { files: string[]; text?: string };
}

/**
 * What Claude (or another app) is told when the user allowed a change but the memory it touches changed while it
 * waited (the user's own edit, another change allowed first): what the card showed is no longer what it would do.
 */
export const CHANGED_WHILE_WAITING_MESSAGE = 'The memory changed while this change waited for approval, so what the user was shown is no longer what it would do; nothing was changed. View the memory and try again.';

/**
 * What is at `paths` now (each entry's kind and version, a folder's files too): equal strings, nothing there
 * changed. Taken before a card is described and again after Allow, so an Allow applies to the memory the card
 * showed, or to nothing.
 */
export function fingerprint(memory: Pick<MemoryOps, 'stat' | 'list'>, paths: Array<string | undefined>): string {
  return JSON.stringify(
    paths.map((p) => {
      if (p === undefined) return null;
      const meta = memory.stat(p);
      if (!meta) return '-';
      if (meta.kind === 'file') return `${meta.version}`;
      return memory.list(p, Infinity).map((e) => (e.kind === 'file' ? `${e.path}:${e.version}` : e.path));
    }),
  );
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The effect of `command` with `input` on the memory as it is now. Never
 * throws: a change whose effect cannot be computed (bad input, missing or
 * damaged file) gets no detail, and the tool itself reports the error. The
 * path is read in its canonical form, as the tool reads it: `/memories/dir/`
 * or a decomposed accent names the same entry, and the card must show it.
 */
export async function describeChange(memory: Pick<MemoryOps, 'stat' | 'list' | 'readFile'>, command: string, input: Record<string, unknown>): Promise<ApprovalChange> {
  try {
    const raw = str(input.path);
    if (!raw) return {};
    const path = validateMemoryPath(raw);
    const meta = memory.stat(path);
    const current = meta?.kind === 'file' ? await memory.readFile(path) : undefined;
    if (command === 'create') {
      const text = str(input.file_text);
      return text === undefined ? {} : { diff: { before: current ?? '', after: text } };
    }
    if (command === 'str_replace' && current !== undefined) {
      const oldStr = str(input.old_str);
      const newStr = str(input.new_str);
      if (!oldStr || newStr === undefined) return {};
      const at = current.indexOf(oldStr);
      // Only a unique match is applied by the tool; anything else fails and changes nothing.
      if (at < 0 || current.indexOf(oldStr, at + 1) >= 0) return {};
      return { diff: { before: current, after: current.slice(0, at) + newStr + current.slice(at + oldStr.length) } };
    }
    if (command === 'insert' && current !== undefined) {
      const text = str(input.insert_text);
      const line = input.insert_line;
      const lines = current.split('\n');
      if (text === undefined || typeof line !== 'number' || !Number.isInteger(line) || line < 0 || line > lines.length) return {};
      lines.splice(line, 0, text.replace(/\n$/, ''));
      return { diff: { before: current, after: lines.join('\n') } };
    }
    if (command === 'delete' && meta) {
      if (meta.kind === 'file') return { removes: { files: [path], text: current ?? '' } };
      return { removes: { files: memory.list(path, Infinity).filter((e) => e.kind === 'file').map((e) => e.path) } };
    }
  } catch {
    // A damaged or vanished file: no detail; the tool reports the problem when it runs.
  }
  return {};
}
