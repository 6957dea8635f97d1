/**
 * A v1 vault read as the frozen pseudo-device L (docs/sync-design.md §8)
 * shows exactly what v1's own State shows: the committed fixture vault and a
 * v1 state with renames, deletions, a trash and pruned history.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fromUtf8 } from '../../../electron/core/vault/crypto';
import { State, type Snapshot } from '../../../electron/core/vault/state';
import type { Store } from '../../../electron/core/vault/store';
import { ROOT } from '../../../electron/core/vault/sync/crdt';
import { fromV1 } from '../../../electron/core/vault/sync/from-v1';
import { SyncView } from '../../../electron/core/vault/sync/view';
import { Vault } from '../../../electron/core/vault/vault';
import { FIXTURE } from '../../fixtures/vault-v1-contents';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-fromv1-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const plain = <T extends object>(entries: T[]) => entries.map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'vid' && k !== 'device')));

/** Everything v1's State answers, from the v1 State and from the view of fromV1 of its snapshot. */
function expectSameAsV1(state: State, view: SyncView) {
  const entries = state.list(ROOT, Infinity);
  expect(view.list(ROOT, Infinity)).toEqual(entries);
  expect(view.stat(ROOT)).toEqual(state.stat(ROOT));
  for (const e of entries) {
    expect(view.stat(e.path)).toEqual(state.stat(e.path));
    if (e.kind !== 'file') continue;
    expect(plain(view.versions(e.path))).toEqual(state.versions(e.path));
    expect(view.history(e.path)).toEqual(state.history(e.path));
  }
  expect(view.trashed().map((t) => ({ ...t, versions: plain(t.versions) }))).toEqual(state.trashed());
  expect(view.kv.keys('')).toEqual([...state.internal.keys()].sort());
  for (const [k, ref] of state.internal) expect(view.kv.get(k)).toMatchObject({ kind: 'single', b: { id: ref.id } });
  expect(view.depth()).toBe(state.depth);
  expect(view.totalSize()).toBe(state.totalSize());
  expect(view.conflicts()).toEqual([]);
}

it('the frozen v1 fixture vault reads as pseudo-device L with the same listing, versions, texts and settings as v1', async () => {
  const dir = path.join(root, 'vault');
  await fs.cp(path.join(import.meta.dirname, '../../fixtures/vault-v1'), dir, { recursive: true });
  // Opened as format 1: its session's own state (vault.session) is what format 2's reading of the v1 fixture is compared with.
  const vault = await Vault.open(dir, { stateDir: path.join(root, 'state'), readOnly: true, format2: false });
  // The recovery key opens it without the passphrase's Argon2id (the fixture's real, slow derivation).
  await vault.unlockWithRecoveryKey(FIXTURE.recoveryKey);
  const { state, store } = (vault as unknown as { session: { state: State; store: Store } }).session;
  const { state: s, blobs } = fromV1(state.toSnapshot('', []));
  // L's texts, read where v1 keeps them (the reader stage 3 builds from `blobs`).
  const texts = new Map<string, string>();
  for (const [id, ref] of blobs) if (![...state.internal.values()].some((r) => r.id === id)) texts.set(id, fromUtf8(await store.readBlob('blobs', ref, id)));
  const view = new SyncView(s, (b) => texts.get(b.id)!);
  expectSameAsV1(state, view);
  for (const [p, versions] of Object.entries(FIXTURE.history)) {
    expect(view.versions(p).map((v) => texts.get(view.graph.all.get(v.vid!)!.rec.b.id))).toEqual(versions);
  }
  const settings = view.kv.get('settings');
  expect(settings?.kind === 'single' && JSON.parse(fromUtf8(await store.readBlob('internal', blobs.get(settings.b.id)!, 'settings')))).toEqual(FIXTURE.settings);
  expect(s.frontier.get('L')).toBe(state.gen);
  await vault.close();
});

const ref = (id: string) => ({ id: id.repeat(32).slice(0, 32), seg: 'seg', off: 0, len: 10, h: 'h'.repeat(64) });

it('a v1 state with renames, deletions, a trash, pruned history and a clock that stepped back reads the same as v1', () => {
  const at = (n: number) => 1_700_000_000_000 + n * 1000;
  const s = State.empty(3, at(0));
  let n = 0;
  const write = (p: string, t: number) => s.apply({ t: 'write', p, b: ref((++n).toString(16)), s: n * 3, v: s.nextVersion(p), at: at(t), w: { kind: 'user' } });
  write('/memories/a/one.md', 1);
  write('/memories/a/one.md', 2);
  write('/memories/a/one.md', 1); // the clock stepped back: still version 3, after 2
  write('/memories/a/one.md', 4);
  write('/memories/a/one.md', 5); // depth 3: version 1 is pruned
  write('/memories/b.md', 6);
  s.apply({ t: 'mv', p: '/memories/a', np: '/memories/c', at: at(7) });
  s.apply({ t: 'rm', p: '/memories/b.md', at: at(8), w: { kind: 'claude' } });
  write('/memories/gone.md', 9);
  s.apply({ t: 'rm', p: '/memories/gone.md', at: at(10) });
  s.apply({ t: 'purge', ps: ['/memories/gone.md'] });
  write('/memories/again.md', 11);
  s.apply({ t: 'rm', p: '/memories/again.md', at: at(12) });
  write('/memories/again.md', 13); // written again after a delete: history carries on
  s.apply({ t: 'mkdir', p: '/memories/empty/deeper', at: at(14) });
  s.apply({ t: 'iput', k: 'settings', b: ref('f') });
  const snap: Snapshot = JSON.parse(JSON.stringify(s.toSnapshot('j', ['j']))) as Snapshot;
  const view = new SyncView(fromV1(snap).state);
  expectSameAsV1(s, view);
  expect(view.versions('/memories/c/one.md').map((v) => v.version)).toEqual([2, 3, 4, 5]);
  expect(view.trashed().map((t) => [t.path, t.deleted, t.by])).toEqual([['/memories/b.md', at(8), { kind: 'claude' }]]);
  // Every device reading the same v1 files gets the same state.
  expect(JSON.stringify([...fromV1(snap).state.files.keys()])).toBe(JSON.stringify([...fromV1(snap).state.files.keys()]));
});
