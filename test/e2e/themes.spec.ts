import { expect, test } from '@playwright/test';
import { createVault, freshApp, openMemories, shot } from './helpers';

test('the app follows the OS dark theme', async () => {
  const app = await freshApp({ colorScheme: 'dark' });
  try {
    const { page } = app;
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await shot(page, '30-dark-create-vault');
    await createVault(page);
    await app.session.unlocked().memory.writeFile('/memories/theme.md', '# Dark\nReadable in the dark.', { mode: 'create', source: 'user' });
    await openMemories(page);
    await page.getByRole('treeitem', { name: 'theme.md' }).click();
    await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Readable in the dark.');
    await shot(page, '31-dark-memories');
    const [r, g, b] = (await background()).match(/\d+/g)!.map(Number);
    expect(r! + g! + b!).toBeLessThan(3 * 100);
  } finally {
    await app.cleanup();
  }
});

test('the app is light when the OS is light', async () => {
  const app = await freshApp({ colorScheme: 'light' });
  try {
    const [r, g, b] = (await app.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).match(/\d+/g)!.map(Number);
    expect(r! + g! + b!).toBeGreaterThan(3 * 180);
  } finally {
    await app.cleanup();
  }
});
