/**
 * Seeded random memory-tool calls for the conformance tests. Each call is
 * drawn with a look at the reference's current files so that it stays out of
 * the reference's known bugs (DESIGN.md §4), where the two sides differ on
 * purpose; those cases have their own tests in fixes.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

const DIRS = ['', 'notes', 'notes/deep', 'notes/deep/deeper', 'proj', 'proj/x', 'a', 'a-b', 'Zeta', '.hidden', 'node_modules'];
const NAMES = ['a.md', 'b.txt', 'todo.md', 'é.md', 'Z.md', '.dot.md', 'x-1.md', 'notes', 'deep'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'café', '日本語', '🙂', 'x', 'the', 'line', 'user', 'likes', 'tea', '-', '  '];

/** Every path the reference holds, so most calls aim at something that exists. */
function existing(root: string, dir = root, prefix = '/memories'): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    out.push(`${prefix}/${e.name}`);
    if (e.isDirectory()) out.push(...existing(root, path.join(dir, e.name), `${prefix}/${e.name}`));
  }
  return out;
}

function randomPath(rng: Rng, root: string, filesOnly = false): string {
  const present = existing(root).filter((p) => !filesOnly || fs.statSync(path.join(root, p.slice('/memories/'.length))).isFile());
  if (present.length > 0 && rng() < (filesOnly ? 0.8 : 0.6)) return pick(rng, present);
  const dir = pick(rng, DIRS);
  if (rng() < 0.2) return dir ? `/memories/${dir}` : '/memories';
  return `/memories/${dir ? dir + '/' : ''}${pick(rng, NAMES)}`;
}

function randomLine(rng: Rng): string {
  return Array.from({ length: int(rng, 0, 5) }, () => pick(rng, WORDS)).join(' ');
}

function randomText(rng: Rng, maxLines = 8): string {
  const text = Array.from({ length: int(rng, 1, maxLines) }, () => randomLine(rng)).join('\n');
  return rng() < 0.4 ? text + '\n' : text;
}

type Kind = 'missing' | 'file' | 'dir' | 'under-file';

/** What the reference has at a virtual path. */
function kindAt(root: string, virtual: string): Kind {
  const rel = virtual.slice('/memories'.length).replace(/^\//, '');
  const parts = rel ? rel.split('/') : [];
  let host = root;
  for (let i = 0; i < parts.length; i++) {
    host = path.join(host, parts[i] as string);
    let st: fs.Stats;
    try {
      st = fs.statSync(host);
    } catch {
      return 'missing';
    }
    if (i < parts.length - 1 && !st.isDirectory()) return 'under-file';
  }
  return fs.statSync(host).isDirectory() ? 'dir' : 'file';
}

function readRef(root: string, virtual: string): string {
  return fs.readFileSync(path.join(root, virtual.slice('/memories/'.length)), 'utf8');
}

const perLine = (text: string, needle: string): number => text.split('\n').filter((l) => l.includes(needle)).length;
function overlapping(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) n++;
  return n;
}

/** One call the reference handles correctly, or undefined when this draw would hit a known bug. */
function draw(rng: Rng, root: string): Record<string, unknown> | undefined {
  const r = rng();
  const p = randomPath(rng, root, r >= 0.45 && r < 0.8);
  const kind = kindAt(root, p);
  if (kind === 'under-file') return undefined; // the reference leaks a raw ENOTDIR with its host path
  if (r < 0.25) {
    if (kind !== 'file' || rng() < 0.5) return { command: 'view', path: p };
    const n = readRef(root, p).split('\n').length;
    const first = int(rng, 1, n);
    return { command: 'view', path: p, view_range: [first, rng() < 0.3 ? -1 : int(rng, first, n)] };
  }
  if (r < 0.45) return { command: 'create', path: p, file_text: randomText(rng) };
  if (r < 0.65) {
    let oldStr = pick(rng, WORDS);
    if (kind === 'file') {
      const text = readRef(root, p);
      const lines = text.split('\n');
      const line = pick(rng, lines);
      const at = int(rng, 0, line.length);
      const choice = rng();
      if (choice < 0.5) oldStr = line.slice(at, at + int(rng, 1, 12));
      else if (choice < 0.7) oldStr = line;
      // Empty, multi-line, repeated-within-a-line and overlapping matches are the reference's bugs.
      if (oldStr === '' || oldStr.includes('\n') || perLine(text, oldStr) !== overlapping(text, oldStr)) return undefined;
    }
    const input: Record<string, unknown> = { command: 'str_replace', path: p, old_str: oldStr };
    if (rng() < 0.9) input.new_str = rng() < 0.2 ? randomText(rng, 3) : randomLine(rng);
    return input;
  }
  if (r < 0.8) {
    const n = kind === 'file' ? readRef(root, p).split('\n').length : 1;
    const line = rng() < 0.9 ? int(rng, 0, n) : pick(rng, [-1, n + 1, n + 7]);
    return { command: 'insert', path: p, insert_line: line, insert_text: randomText(rng, 3) };
  }
  if (r < 0.88) return { command: 'delete', path: p };
  const to = randomPath(rng, root);
  const toKind = kindAt(root, to);
  if (toKind === 'under-file') return undefined;
  // Moving into its own subtree fails with a raw EINVAL; a missing source still makes the new parent directories.
  if (to.startsWith(p + '/')) return undefined;
  if (kind === 'missing' && toKind === 'missing' && kindAt(root, to.slice(0, to.lastIndexOf('/')) || '/memories') !== 'dir') return undefined;
  return { command: 'rename', old_path: p, new_path: to };
}

/** The next random call for the reference's current state. */
export function nextCall(rng: Rng, referenceRoot: string): Record<string, unknown> {
  for (;;) {
    const call = draw(rng, referenceRoot);
    if (call) return call;
  }
}
