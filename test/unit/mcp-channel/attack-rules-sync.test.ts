/**
 * Per-app rules (client-rules.ts) on a vault two computers share (format 2):
 * the rule the user narrows on one computer must hold on the other once it
 * has synced, and a later change there must not write the old rule back.
 * Two computers here are two state folders on copies of one vault folder,
 * their `devices/` folders copied across as a sync engine would (as in
 * test/unit/sync/keys2.test.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { accessOf, currentAccess, knownClients, setAccess } from '../../../electron/core/mcp/client-rules';
import { twoComputers } from '../sync/two-computers';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-rules2-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));



it('an app set to view only on one computer may only view on the other once synced, and a new app there does not undo the rule', async () => {
  const { va, vb, sync } = await twoComputers(root);
  // Cursor connects through computer A's app: remembered as it may change memory.
  expect(await accessOf(va.internal, 'Cursor', 'read-write')).toBe('read-write');
  await sync();
  expect((await knownClients(vb.internal)).map((c) => [c.name, c.access])).toEqual([['Cursor', 'read-write']]);
  // On computer B the user sets Cursor to view only.
  await setAccess(vb.internal, 'Cursor', 'read-only');
  await sync();
  // A has B's rule: what A's app checks at each call says view only.
  expect((await va.internal.getJSON<Array<{ name: string; access: string }>>('mcp/clients'))?.find((c) => c.name === 'Cursor')?.access).toBe('read-only');
  expect(await currentAccess(va.internal, 'Cursor', 'read-write')).toBe('read-only');
  // Another app connects on A: its remembering must keep B's rule for Cursor, there and on B.
  await accessOf(va.internal, 'Zed', 'read-write');
  await sync();
  for (const v of [va, vb]) expect((await v.internal.getJSON<Array<{ name: string; access: string }>>('mcp/clients'))?.find((c) => c.name === 'Cursor')?.access).toBe('read-only');
  await va.close();
  await vb.close();
});
