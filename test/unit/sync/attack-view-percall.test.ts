/**
 * Attacks the patched view of format 2 (sync/view.ts) where one computer writes from two processes at once (the app
 * and `mnemo memory`/`mnemo mcp`, OpenOptions.lockPerCall): each takes the lock per call and catches up with the
 * other's records of the same device first (vault2.ts `catchUp2`), then its own write patches its view. Two Vault
 * objects in one process exclude each other as two processes do. After every step each one's view is compared with a
 * view built from scratch of its state, and, after a hold (a catch-up), the two show the same memories and total.
 */
import { expect, it } from 'vitest';
import { SyncView } from '../../../electron/core/vault/sync/view';
import type { SyncSession } from '../../../electron/core/vault/sync/session2';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError } from '../../../electron/core/vault/types';
import { prng } from '../../deep';
import { PASS } from '../vault/helpers';
import { cleanupsAfterEach, madeVault } from '../vault/lock-children';

const cleanup = cleanupsAfterEach();
const session = (v: Vault) => (v as unknown as { session2: SyncSession }).session2;
type Reader = ConstructorParameters<typeof SyncView>[1];

function sameAsFresh(v: Vault, step: string): void {
  const s = session(v);
  const fresh = new SyncView(s.store.state, (s as unknown as { reader: Reader }).reader);
  const of = (x: SyncView) => JSON.stringify({ list: x.list('/memories', 10), trash: x.trashed(), total: x.totalSize(), versions: x.list('/memories', 10).map((e) => x.versions(e.path)) });
  expect({ step, view: of(s.view) }).toEqual({ step, view: of(fresh) });
}

it('two processes of one computer writing in turn and at once: each patched view is the view built from scratch', async () => {
  const { dir, state } = await madeVault('mnemo-attack-view-percall-', cleanup);
  const open = async () => {
    const v = await Vault.open(dir, { stateDir: state, lockPerCall: true, ackDelayMs: 0 });
    cleanup(() => v.close());
    await v.unlock(PASS);
    return v;
  };
  const ps = [await open(), await open()];
  const rnd = prng(7);
  const names = ['/memories/a.md', '/memories/b.md', '/memories/d/c.md', '/memories/d/e.md', '/memories/d'];
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const op = (v: Vault, k: number) => {
    const r = rnd();
    const p = pick(names);
    if (r < 0.5) return v.memory.writeFile(p, `text ${k} `.repeat(1 + Math.floor(rnd() * 20)), { mode: 'upsert', source: 'cli' });
    if (r < 0.7) return v.memory.remove(p, 'cli');
    if (r < 0.9) return v.memory.rename(p, pick(names), 'cli');
    return v.restoreDeleted(v.trash()[0]?.path ?? p);
  };
  const allowed = (e: unknown) => {
    if (!(e instanceof VaultError)) throw e;
  };
  let patched = 0;
  for (let k = 0; k < 80; k++) {
    if (k % 3 === 2) await Promise.all([op(ps[0]!, k).catch(allowed), op(ps[1]!, k).catch(allowed)]);
    else await op(pick(ps), k).catch(allowed);
    for (const v of ps) {
      if (session(v).view.patched) patched++;
      sameAsFresh(v, `${k}`);
    }
  }
  const shown = await Promise.all(ps.map((v) => v.hold(async () => ({ list: v.memory.list('/memories', 10), total: v.memory.totalSize() }))));
  expect(shown[0]).toEqual(shown[1]);
  expect(patched).toBeGreaterThan(10);
}, 120_000);
