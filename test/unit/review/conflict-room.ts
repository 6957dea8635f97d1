/**
 * Two computers for the review inbox's conflict tests (conflicts2.test.ts, conflicts2-attack.test.ts): a temporary
 * folder per test (removed after it, every vault closed), two computers on copies of one format-2 vault
 * (sync/two-computers.ts), and the inbox's conflict entries of a vault.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { FIRST_PROJECT_ID } from '../../../electron/core/projects/store';
import { ReviewInbox, reviewVault } from '../../../electron/core/review/inbox';
import type { Vault } from '../../../electron/core/vault/vault';
import { twoComputers } from '../sync/two-computers';

export function conflictRoom(prefix: string) {
  const room = { root: '' };
  const open: Vault[] = [];
  beforeEach(async () => {
    room.root = await fs.mkdtemp(path.join(os.tmpdir(), `mnemo-${prefix}-`));
  });
  afterEach(async () => {
    for (const v of open.splice(0)) await v.close().catch(() => undefined);
    await fs.rm(room.root, { recursive: true, force: true });
  });
  async function computers() {
    const c = await twoComputers(room.root);
    open.push(c.va, c.vb);
    return c;
  }
  const inbox = (v: Vault) => new ReviewInbox(reviewVault(v));
  const conflicts = async (v: Vault, project = FIRST_PROJECT_ID) => (await inbox(v).list(project)).filter((e) => e.kind === 'conflict');
  /** A vault made here by the test, closed after it. */
  const keep = (v: Vault) => open.push(v);
  return { room, computers, inbox, conflicts, keep };
}
