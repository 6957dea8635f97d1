/**
 * A memory Claude changed and then moved is shown as a change from the text
 * the user last saw, not as a brand-new text in which the change is buried.
 */
import { expect, it } from 'vitest';
import { ReviewInbox } from '../../../electron/core/review/inbox';
import { FIRST_PROJECT_ID } from '../../../electron/core/projects/store';
import { claude, useTempVault, user } from './helpers';

const t = useTempVault();

const inbox = () => new ReviewInbox(t.vault);
const listed = async () => (await inbox().list()).map((e) => `${e.path} ${e.kind} v${e.version}${e.reviewedVersion ? ` from v${e.reviewedVersion}` : ''} ${e.by.kind}${e.from ? ` moved from ${e.from}` : ''}`);

it('a memory Claude changed and then moved is diffed from the version the user reviewed or wrote', async () => {
  const stop = inbox().track();
  await user(t.vault, '/memories/mine.md', 'mine');
  await claude(t.vault, '/memories/mine.md', 'mine, and a poisoned line');
  await claude(t.vault, '/memories/seen.md', 'seen');
  await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/seen.md', version: 1 }]);
  await claude(t.vault, '/memories/seen.md', 'seen, and a poisoned line');
  await t.vault.memory.rename('/memories/mine.md', '/memories/a/mine.md', 'claude');
  await t.vault.memory.rename('/memories/seen.md', '/memories/b.md', 'claude');
  await t.vault.memory.rename('/memories/b.md', '/memories/c.md', 'claude');
  expect(await listed()).toEqual([
    '/memories/a/mine.md new v2 from v1 claude moved from /memories/mine.md',
    '/memories/c.md new v2 from v1 claude moved from /memories/seen.md',
  ]);
  stop();
});

it('a memory Claude only moved is diffed against its own text, showing no change in it', async () => {
  const stop = inbox().track();
  await user(t.vault, '/memories/mine.md', 'mine');
  await t.vault.memory.rename('/memories/mine.md', '/memories/moved.md', 'claude');
  expect(await listed()).toEqual(['/memories/moved.md new v1 from v1 claude moved from /memories/mine.md']);
  stop();
});
