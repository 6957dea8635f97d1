/**
 * The pure-world steps of the attacks on forgetting (attack-forget.test.ts, attack-announce.test.ts): a put, the
 * compactor's forget, a computer saying it is there, a full sync, and what a key reads as.
 */
import { forgetOp, kputOp, regOp } from '../../../electron/core/vault/sync/build';
import { World, type Device } from './sim';

/** `d` writes `v` (as JSON) under `key`. */
export const put = (w: World, d: Device, key: string, v: unknown) => d.commit(kputOp(d.view(), key, w.texts.add(JSON.stringify(v)).b));

/** The compactor of `d`: its forget, as session2 `checkpoint` writes it. */
export const compact = (d: Device) => {
  const f = forgetOp(d.view(), d.id);
  return f ? d.commit(f) : undefined;
};

/** What a computer writes when it first sees the others (vault2.ts `announce2`), received by `to`. */
export const announce = (d: Device, to: Device) => {
  d.commit(regOp(d.view(), `device-name:${d.id}`, d.id.slice(0, 4)));
  to.receive(d);
};

/** Every computer receives every other, twice over. */
export const sync = (...ds: Device[]) => {
  for (let i = 0; i < 2; i++) for (const a of ds) for (const b of ds) if (a !== b) a.receive(b);
};

/** What `key` reads as on `d` (a merge: the merged value). */
export const valueOf = (w: World, d: Device, key: string) => {
  const v = d.view().kv.get(key, w.texts.readKv);
  if (!v) return undefined;
  return v.kind === 'single' ? JSON.parse(w.texts.text(v.b.id)) : v.value;
};

/** A world of computers (a, b, c…) where a wrote `settings` and b has read it and said it is there; with `synced`, a has seen that. */
export function twoKnown(settings: unknown, synced = true): { w: World; a: Device; b: Device } {
  const w = new World();
  const [a, b] = w.devices as [Device, Device];
  put(w, a, 'settings', settings);
  b.receive(a);
  announce(b, a);
  if (synced) sync(a, b);
  return { w, a, b };
}
