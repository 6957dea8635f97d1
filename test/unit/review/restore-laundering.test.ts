/**
 * Bringing back text Claude wrote does not make it the user's: an undo in the
 * chat, a restore from the trash or from history re-lists a version nobody
 * reviewed, so Claude cannot get unseen text live by making the user undo a
 * later change or restore a memory it deleted. Nor does a memory made again
 * at a reviewed path inherit the old one's review.
 */
import { expect, it } from 'vitest';
import { ReviewInbox } from '../../../electron/core/review/inbox';
import { FIRST_PROJECT_ID } from '../../../electron/core/projects/store';
import type { VaultApi } from '../../../electron/core/vault/types';
import { claude, claudeBy, useTempVault, user } from './helpers';

const t = useTempVault();

/** What the chat's Undo does: the version before the undone one, written by the user as a restore. */
const undo = async (v: VaultApi, path: string, version: number) => {
  const text = await t.vault.readVersion(path, version - 1);
  await v.memory.writeFile(path, text, { mode: 'update', expectedVersion: version, source: 'user', by: { kind: 'restore', fromVersion: version - 1 } });
};
const inbox = () => new ReviewInbox(t.vault);
const listed = async () => (await inbox().list()).map((e) => `${e.path} ${e.kind} v${e.version}${e.reviewedVersion ? ` from v${e.reviewedVersion}` : ''} ${e.by.kind}`);

it('undoing Claude\'s later change keeps its earlier unreviewed change to review, diffed from the user\'s text', async () => {
  await user(t.vault, '/memories/rules.md', 'never send money');
  await claude(t.vault, '/memories/rules.md', 'always send money');
  await claude(t.vault, '/memories/rules.md', 'gibberish the user will undo');
  await undo(t.vault, '/memories/rules.md', 3);
  expect(await t.vault.memory.readFile('/memories/rules.md')).toBe('always send money');
  expect(await listed()).toEqual(['/memories/rules.md changed v4 from v1 claude']);
  await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/rules.md', version: 4 }]);
  expect(await listed()).toEqual([]);
});

it('restoring a memory Claude changed and then deleted lists the restored text, which the user never saw', async () => {
  await user(t.vault, '/memories/prefs.md', 'mine');
  await claude(t.vault, '/memories/prefs.md', 'poisoned');
  await t.vault.memory.remove('/memories/prefs.md', 'claude', claudeBy);
  await t.vault.restoreDeleted('/memories/prefs.md');
  expect(await listed()).toEqual(['/memories/prefs.md changed v3 from v1 claude']);
});

it('a restore of a version the user reviewed or wrote stays reviewed', async () => {
  await user(t.vault, '/memories/a.md', 'mine');
  await claude(t.vault, '/memories/a.md', 'seen');
  await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 2 }]);
  await claude(t.vault, '/memories/a.md', 'undone');
  await undo(t.vault, '/memories/a.md', 3);
  await claude(t.vault, '/memories/b.md', 'b1');
  await user(t.vault, '/memories/b.md', 'b2 mine');
  await claude(t.vault, '/memories/b.md', 'b3');
  await undo(t.vault, '/memories/b.md', 3);
  expect(await listed()).toEqual([]);
});

it('a restore of a restore of Claude\'s text is still to review', async () => {
  await user(t.vault, '/memories/a.md', 'mine');
  await claude(t.vault, '/memories/a.md', 'poisoned');
  await claude(t.vault, '/memories/a.md', 'noise');
  await undo(t.vault, '/memories/a.md', 3);
  await t.vault.restore('/memories/a.md', 4, 'user');
  expect(await listed()).toEqual(['/memories/a.md changed v5 from v1 claude']);
});

it('renaming a memory Claude recreated after the trash was emptied does not carry over the review of the old one', async () => {
  const stop = inbox().track();
  await claude(t.vault, '/memories/a.md', 'one');
  await claude(t.vault, '/memories/a.md', 'two');
  await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 2 }]);
  await t.vault.memory.remove('/memories/a.md', 'claude', claudeBy);
  await t.vault.emptyTrash();
  // Same path, same version number as the reviewed one: a different memory all the same.
  await claude(t.vault, '/memories/a.md', 'evil one');
  await claude(t.vault, '/memories/a.md', 'evil two');
  expect(await listed()).toEqual(['/memories/a.md new v2 claude']);
  await t.vault.memory.rename('/memories/a.md', '/memories/b.md', 'user');
  await t.vault.memory.rename('/memories/b.md', '/memories/d/b.md', 'user');
  expect(await listed()).toEqual(['/memories/d/b.md new v2 claude']);
  stop();
});
