/**
 * Random work for the simulated devices of sim.ts: creates, edits (line
 * inserts, changes and deletions, so some concurrent edits merge and some
 * overlap), deletes, renames, folders, restores, forgets, purges, internal
 * values and the depth register, each built from the device's own view as
 * a real device would, and syncs between devices in random directions.
 */
import { forgetOp, kdelOp, kputOp, materializeOp, mkdirOp, mvOp, purgeOp, putOp, regOp, rmOp } from '../../../electron/core/vault/sync/build';
import { ROOT } from '../../../electron/core/vault/sync/crdt';
import type { Device, World } from './sim';

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const chance = (rng: Rng, p: number) => rng() < p;

const NAMES = ['a.md', 'b.md', 'notes.md', 'todo.md', 'x', 'd'];
const DIRS = ['', '/x', '/y', '/x/z'];
const KEYS = ['settings', 'projects/0123456789abcdef', 'projects/fedcba9876543210', 'models', 'conversations/c1'];

let lineNo = 0;
const line = (rng: Rng, dev: Device) => `${dev.id.slice(0, 1)}-${++lineNo}-${pick(rng, ['tea', 'coffee', 'likes', 'notes', 'plan'])}`;

/** A new text from `old`: a line changed, inserted, removed or appended. */
function edit(rng: Rng, dev: Device, old: string): string {
  const lines = old.split('\n');
  const at = Math.floor(rng() * lines.length);
  const r = rng();
  if (r < 0.35) lines[at] = line(rng, dev);
  else if (r < 0.6) lines.splice(at, 0, line(rng, dev));
  else if (r < 0.75 && lines.length > 1) lines.splice(at, 1);
  else lines.push(line(rng, dev));
  return lines.join('\n');
}

function kvValue(rng: Rng, dev: Device, key: string): unknown {
  if (key === 'settings') {
    return { approvalMode: chance(rng, 0.5), guardMode: pick(rng, ['block', 'redact', 'allow']), autoLockMinutes: pick(rng, [0, 5, 10, 30]), historyDepth: pick(rng, [5, 20, 50]), model: pick(rng, ['m1', 'm2']) };
  }
  if (key.startsWith('projects/')) return { name: pick(rng, ['Work', 'work', 'Home', 'Side']), created: pick(rng, [1, 2, 3]), ...(chance(rng, 0.2) ? { deleted: dev.world.now } : {}) };
  return { v: line(rng, dev) };
}

/** Makes one random op on `dev` (or none, when the drawn change does not apply). */
export function randomOp(rng: Rng, dev: Device): void {
  const w = dev.world;
  const v = dev.view();
  const entries = v.list(ROOT, Infinity);
  const files = entries.filter((e) => e.kind === 'file').map((e) => e.path);
  const dirs = [ROOT, ...entries.filter((e) => e.kind === 'dir').map((e) => e.path)];
  const underFile = (p: string) => {
    for (let d = p.slice(0, p.lastIndexOf('/')); d.length > ROOT.length; d = d.slice(0, d.lastIndexOf('/'))) if (v.stat(d)?.kind === 'file') return true;
    return false;
  };
  const freshPath = () => `${ROOT}${pick(rng, DIRS)}/${pick(rng, NAMES)}`;
  const r = rng();
  if (r < 0.2) {
    const p = freshPath();
    if (v.isDir(p) || underFile(p)) return;
    const text = Array.from({ length: 3 + Math.floor(rng() * 8) }, () => line(rng, dev)).join('\n');
    dev.commit(putOp(v, p, w.texts.add(text), dev.nextVid(), { kind: 'user' }));
  } else if (r < 0.5) {
    if (!files.length) return;
    const p = pick(rng, files);
    dev.commit(putOp(v, p, w.texts.add(edit(rng, dev, dev.text(p))), dev.nextVid(), { kind: 'claude' }));
  } else if (r < 0.58) {
    const targets = [...files, ...dirs.filter((d) => d !== ROOT)];
    if (targets.length) dev.commit(rmOp(v, pick(rng, targets), { kind: 'user' }));
  } else if (r < 0.66) {
    const targets = [...files, ...dirs.filter((d) => d !== ROOT)];
    if (!targets.length) return;
    const p = pick(rng, targets);
    const np = v.isDir(p) ? `${pick(rng, dirs)}/${pick(rng, ['m', 'n'])}` : freshPath();
    if (v.stat(np) || np.startsWith(p + '/') || underFile(np) || np === p) return;
    dev.commit(mvOp(v, p, np));
  } else if (r < 0.7) {
    const p = `${pick(rng, dirs)}/${pick(rng, ['d', 'e'])}`;
    if (!v.stat(p) && !underFile(p + '/x')) dev.commit(mkdirOp(p));
  } else if (r < 0.73) {
    const t = v.trashed();
    if (!t.length) return;
    const entry = pick(rng, t);
    if (v.stat(entry.path) || underFile(entry.path)) return;
    const last = entry.versions.at(-1)!;
    dev.commit(putOp(v, entry.path, w.texts.add(w.texts.text(v.graph.all.get(last.vid!)!.rec.b.id)), dev.nextVid(), { kind: 'restore', fromVersion: last.version }));
  } else if (r < 0.76) {
    const op = forgetOp(v);
    if (op) dev.commit(op);
  } else if (r < 0.78) {
    const op = purgeOp(v);
    if (op) dev.commit(op);
  } else if (r < 0.88) {
    const k = pick(rng, KEYS);
    dev.commit(kputOp(v, k, w.texts.add(JSON.stringify(kvValue(rng, dev, k))).b));
  } else if (r < 0.9) {
    const op = kdelOp(v, pick(rng, KEYS));
    if (op) dev.commit(op);
  } else if (r < 0.93) {
    dev.commit(regOp(v, 'depth', pick(rng, [2, 3, 6])));
  } else {
    const open = files.filter((p) => v.resolve(p)!.kind !== 'single');
    if (!open.length) return;
    const p = pick(rng, open);
    const res = v.resolve(p)!;
    const op = materializeOp(v, p, res.kind === 'merge' ? w.texts.add(res.text) : undefined);
    if (op) dev.commit(op);
  }
}

/** `steps` rounds of random work and syncs over the world's devices. */
export function randomRun(rng: Rng, w: World, steps: number): void {
  lineNo = 0;
  for (let i = 0; i < steps; i++) {
    w.now += Math.floor(rng() * 3000);
    const dev = pick(rng, w.devices);
    if (chance(rng, 0.2)) dev.receive(pick(rng, w.devices.filter((d) => d !== dev)));
    else randomOp(rng, dev);
  }
}
