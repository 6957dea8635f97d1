/**
 * Text the memory tool answers with. Shapes and wording follow the SDK's
 * reference tool (`BetaLocalFilesystemMemoryTool`) because Claude is trained on
 * them; only the paging hints are ours.
 */
import type { EntryMeta } from '../vault/types';

/** Widest line number the reference prints (999,999 lines), so numbers are right-aligned in 6. */
export const MAX_LINES = 999_999;
const LINE_NUMBER_WIDTH = String(MAX_LINES).length;
// Room kept for the paging hint when a view is cut.
const HINT_RESERVE = 320;

/** Sizes as the reference prints them: `0B`, `512B`, `5.5K`, `1M`, `1.2G`. */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return '0B';
  const k = 1024;
  const units = ['B', 'K', 'M', 'G'];
  const i = Math.min(Math.floor(Math.log(bytes) / Math.log(k)), units.length - 1);
  const size = bytes / Math.pow(k, i);
  return (size % 1 === 0 ? size.toString() : size.toFixed(1)) + units[i];
}

/** One numbered line as the reference prints it: the number right-aligned in 6, a tab, the text. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(LINE_NUMBER_WIDTH, ' ')}\t${text}`;
}

/** `lines` numbered from `first`. */
export function numberLines(lines: readonly string[], first: number): string[] {
  return lines.map((line, i) => numberedLine(first + i, line));
}

/** A name the listing leaves out (and does not descend into), as the reference does. */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

interface Node {
  entry: EntryMeta;
  children: Map<string, Node>;
}

/**
 * The directory view: the directory itself, then its entries two levels deep,
 * depth first with names sorted at each level (the reference's order, which is
 * not plain path order: `a/x` comes before `a-b`). Directories show the total
 * size of the files below them. Cut to `maxChars` with a hint when too long.
 */
export function formatDirectoryView(dir: string, all: readonly EntryMeta[], maxChars: number): string {
  const sizes = new Map<string, number>();
  const root: Node = { entry: { kind: 'dir', path: dir, created: 0, modified: 0 }, children: new Map() };
  const nodes = new Map<string, Node>([[dir, root]]);
  const ordered = [...all].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const entry of ordered) {
    const rel = entry.path.slice(dir.length + 1).split('/');
    if (entry.kind === 'file') {
      // Every ancestor up to the viewed directory counts this file's bytes.
      for (let i = 0; i < rel.length; i++) {
        const ancestor = i === 0 ? dir : `${dir}/${rel.slice(0, i).join('/')}`;
        sizes.set(ancestor, (sizes.get(ancestor) ?? 0) + entry.size);
      }
    }
    if (rel.length > 2 || rel.some(isHiddenName)) continue;
    const parent = nodes.get(rel.length === 1 ? dir : `${dir}/${rel[0]}`);
    const node: Node = { entry, children: new Map() };
    parent?.children.set(rel[rel.length - 1] ?? '', node);
    nodes.set(entry.path, node);
  }

  const lines: string[] = [`${formatFileSize(sizes.get(dir) ?? 0)}\t${dir}`];
  const walk = (node: Node): void => {
    for (const name of [...node.children.keys()].sort()) {
      const child = node.children.get(name) as Node;
      const { entry } = child;
      if (entry.kind === 'dir') {
        lines.push(`${formatFileSize(sizes.get(entry.path) ?? 0)}\t${entry.path}/`);
        walk(child);
      } else {
        lines.push(`${formatFileSize(entry.size)}\t${entry.path}`);
      }
    }
  };
  walk(root);

  const header = `Here're the files and directories up to 2 levels deep in ${dir}, excluding hidden items and node_modules:`;
  const listing = `${header}\n${lines.join('\n')}`;
  if (listing.length <= maxChars) return listing;
  const budget = maxChars - header.length - HINT_RESERVE;
  let used = 0;
  let shownCount = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    used += line.length + 1;
    shownCount++;
  }
  const hidden = lines.length - shownCount;
  return (
    `${header}\n${lines.slice(0, shownCount).join('\n')}\n` +
    `[Listing cut: ${hidden} more ${hidden === 1 ? 'entry is' : 'entries are'} not shown to keep this view under ${maxChars} characters. ` +
    'View a subdirectory to see its entries.]'
  );
}

/**
 * The file view of lines `first`..`last` (1-based, inclusive) of `lines`,
 * cut to `maxChars` with a hint naming the view_range that shows the rest.
 */
export function formatFileView(path: string, lines: readonly string[], first: number, last: number, maxChars: number): string {
  const header = `Here's the content of ${path} with line numbers:`;
  const whole = header.length + (last - first + 1) * (LINE_NUMBER_WIDTH + 2) + lines.slice(first - 1, last).reduce((n, l) => n + l.length, 0);
  // Numbers past 999,999 are wider than 6, so only trust the estimate below that.
  if (whole <= maxChars && last <= MAX_LINES) return `${header}\n${numberLines(lines.slice(first - 1, last), first).join('\n')}`;
  const budget = Math.max(0, maxChars - header.length - HINT_RESERVE);
  const out: string[] = [];
  let used = 0;
  let lineNumber = first;
  for (; lineNumber <= last; lineNumber++) {
    const text = numberedLine(lineNumber, lines[lineNumber - 1] ?? '');
    if (used + text.length + 1 > budget) break;
    out.push(text);
    used += text.length + 1;
  }
  if (lineNumber > last) return `${header}\n${out.join('\n')}`;

  const total = lines.length;
  if (out.length === 0) {
    // A single line longer than the whole budget: show its start so the file is not a blank.
    const text = numberedLine(lineNumber, lines[lineNumber - 1] ?? '').slice(0, budget);
    const next = lineNumber + 1 <= total ? ` The next line is ${lineNumber + 1}: view_range: [${lineNumber + 1}, -1].` : '';
    return (
      `${header}\n${text}\n` +
      `[Line ${lineNumber} is too long to show whole in one view (over ${maxChars} characters); only its beginning is shown. ` +
      `Edit it with str_replace using a short unique part of it.${next}]`
    );
  }
  const shownLast = lineNumber - 1;
  return (
    `${header}\n${out.join('\n')}\n` +
    `[Showing lines ${first}-${shownLast} of ${total}: the view was cut to stay under ${maxChars} characters. ` +
    `To read on, call view with view_range: [${shownLast + 1}, ${last === total ? -1 : last}].]`
  );
}
