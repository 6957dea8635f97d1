import { expect, test } from '@playwright/test';
import { openMemories, readyApp } from './helpers';

test('a folder can be created, renamed with its contents, and deleted after confirmation', async () => {
  const app = await readyApp();
  try {
    const { page } = app;
    await openMemories(page);
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('Path of the new folder').fill('/memories/projects');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(page.getByRole('treeitem', { name: 'projects' })).toBeVisible();
    const vault = app.session.unlocked();
    await vault.memory.writeFile('/memories/projects/atlas.md', 'Atlas', { mode: 'create', source: 'claude' });
    await expect(page.getByRole('treeitem', { name: 'atlas.md' })).toBeVisible();

    await page.getByRole('treeitem', { name: 'projects' }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New path').fill('/memories/work');
    await page.getByLabel('New path').press('Enter');
    await expect(page.getByRole('treeitem', { name: 'work' })).toBeVisible();
    expect(await vault.memory.readFile('/memories/work/atlas.md')).toBe('Atlas');

    await page.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('alertdialog')).toContainText('1 item');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('treeitem', { name: 'work' })).toHaveCount(0);
    expect(vault.memory.stat('/memories/work')).toBeUndefined();
  } finally {
    await app.cleanup();
  }
});
