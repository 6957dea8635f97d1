/**
 * Following what the sync engine brings while a vault is open (format 2,
 * docs/sync-design.md stage 6): a watcher of the vault's folder that has the
 * vault read the other computers' files again when they change (and every
 * few seconds, for engines and file systems that send no events), and the
 * memory changes an ingest made visible, told as the vault's own changes are
 * (VaultChange), so a window lists and shows them without a restart.
 */
import fs from 'node:fs';
import type { VaultChange } from '../types';
import type { SyncView } from './view';

/** Each memory shown, by path: what it shows (its alive heads). Costs no text and no version list. */
export function shownHeads(view: SyncView): Map<string, string> {
  const out = new Map<string, string>();
  for (const [p, g] of view.tree.groups) {
    if (!g.live) continue;
    out.set(p, g.members.flatMap((m) => m.alive).sort().join(' '));
  }
  return out;
}

/** The memory changes from `before` to `view` (written, made, deleted), as the vault tells its own; `source` 'system'. */
export function changesBetween(before: Map<string, string>, view: SyncView): VaultChange[] {
  const after = shownHeads(view);
  const out: VaultChange[] = [];
  for (const [p, heads] of after) {
    if (before.get(p) === heads) continue;
    const meta = view.stat(p);
    if (meta?.kind === 'file') out.push({ op: 'write', path: p, version: meta.version, source: 'system', created: !before.has(p) });
  }
  for (const p of before.keys()) if (!after.has(p)) out.push({ op: 'delete', path: p, source: 'system' });
  return out;
}

export interface FollowTimes {
  /** How long the folder must be quiet after a change before it is read (a sync engine writes in bursts). */
  settleMs?: number;
  /** How often it is read anyway (an engine or a network file system that sends no events). */
  pollMs?: number;
}

/**
 * Runs `read` after each burst of changes under `dir` and every `pollMs`,
 * never two at once (one asked for meanwhile runs once after). Returns the
 * stop. Where the platform cannot watch a folder tree, polling alone goes on.
 */
export function watchFolder(dir: string, read: () => Promise<unknown>, times: FollowTimes = {}): () => void {
  const settleMs = times.settleMs ?? 300;
  const pollMs = times.pollMs ?? 5_000;
  let stopped = false;
  let running = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    timer = undefined;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await read();
    } catch {
      // A read that failed (a locked vault, a file half copied) is tried again at the next change or poll.
    } finally {
      running = false;
      if (again && !stopped) {
        again = false;
        kick();
      }
    }
  };
  const kick = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), settleMs);
    timer.unref?.();
  };
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(dir, { recursive: true, persistent: false }, kick);
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    // Polling only.
  }
  const poll = setInterval(kick, pollMs);
  poll.unref?.();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    clearInterval(poll);
    watcher?.close();
  };
}
