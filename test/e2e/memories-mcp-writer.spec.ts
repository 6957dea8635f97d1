/** A memory an MCP client wrote (through `mnemo mcp`) names that client as its writer: in the tree, History and the review inbox. */
import { expect, test } from '@playwright/test';
import { eachWithMemoriesOpen, type FreshApp } from './helpers';

let app: FreshApp;
eachWithMemoriesOpen((a) => (app = a));

const vault = () => app.session.unlocked();

test('the tree, History and the review inbox name the MCP client that wrote a memory', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/from-code.md', 'v1', { mode: 'create', source: 'cli', by: { kind: 'mcp', client: 'Claude Code' } });
  const item = page.getByRole('treeitem', { name: 'from-code.md' });
  await expect(item.getByText('Claude Code (MCP)', { exact: true })).toBeVisible();
  await expect(item).toHaveAccessibleDescription(/New from Claude Code \(MCP\), not reviewed\. Last changed by Claude Code \(MCP\)\./);
  await item.click();
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('complementary', { name: 'Version history' });
  await expect(history.getByRole('button', { name: /^Version 1 \(current\)/ })).toContainText('Claude Code (MCP)');
});

test('a long client name is cut short in the tree badge and said whole in the description', async () => {
  const { page } = app;
  const client = 'An Extremely Verbose Editor Integration';
  await vault().memory.writeFile('/memories/long.md', 'x', { mode: 'create', source: 'cli', by: { kind: 'mcp', client } });
  const item = page.getByRole('treeitem', { name: 'long.md' });
  await expect(item.getByText('An Extremely Verbos… (MCP)', { exact: true })).toBeVisible();
  await expect(item).toHaveAccessibleDescription(new RegExp(`Last changed by ${client} \\(MCP\\)\\.`));
});
