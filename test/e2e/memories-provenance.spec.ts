import { expect, test } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { eachWithMemoriesOpen, shot, type FreshApp } from './helpers';

let app: FreshApp;
eachWithMemoriesOpen((a) => (app = a));

const vault = () => app.session.unlocked();

test('history lists the current version and who wrote each one, naming the conversation Claude wrote it in', async () => {
  const { page } = app;
  const conversations = new Conversations(vault());
  const conv = await conversations.create();
  await conversations.rename(conv.id, 'Trip planning');
  await vault().memory.writeFile('/memories/plan.md', 'Plan: draft.', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/plan.md', 'Plan: Lisbon in May.', { mode: 'update', source: 'claude', by: { kind: 'claude', conversationId: conv.id, turn: 2 } });
  await page.getByRole('treeitem', { name: 'plan.md' }).click();
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('complementary', { name: 'Version history' });
  const current = history.getByRole('button', { name: /^Version 2 \(current\)/ });
  await expect(current).toContainText('Claude');
  await expect(current).toContainText('“Trip planning”');
  await expect(current).toContainText('turn 2');
  await expect(history.getByRole('button', { name: /^Version 1 / })).toContainText('You');
  await shot(page, '16-memories-history-provenance');
});

test('the tree badges each memory with its last writer: Claude or you', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/by-claude.md', 'c', { mode: 'create', source: 'claude' });
  await vault().memory.writeFile('/memories/by-me.md', 'u', { mode: 'create', source: 'user' });
  await expect(page.getByRole('treeitem', { name: 'by-claude.md' }).getByText('Claude', { exact: true })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'by-me.md' }).getByText('You', { exact: true })).toBeVisible();
});

test('a diff marks changed lines in a gutter, not with +/- text joined to Markdown list dashes, and puts no label on a plain pre', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/list.md', '- milk\n- eggs\n', { mode: 'create', source: 'user' });
  await vault().memory.writeFile('/memories/list.md', '- milk\n- bread\n', { mode: 'update', source: 'claude' });
  await page.getByRole('treeitem', { name: 'list.md' }).click();
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('complementary', { name: 'Version history' });
  await history.getByRole('button', { name: /^Version 1 / }).click();
  const diff = history.getByRole('group', { name: 'Diff from version 1' });
  await expect(diff).toBeVisible();
  // Each line's text is exactly the memory's line; the marker lives in its own column.
  await expect(diff.locator('.removed .text')).toHaveText(['- eggs']);
  await expect(diff.locator('.added .text')).toHaveText(['- bread']);
  await expect(diff.locator('.same .text')).toHaveText(['- milk']);
  await expect(page.locator('pre[aria-label]')).toHaveCount(0);
  await shot(page, '17-memories-diff-gutter');
});
