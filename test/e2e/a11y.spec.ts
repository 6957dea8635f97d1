/**
 * Issue 13 item 9 and "accessibility by proof": every screen passes axe in light
 * and dark, and (under test:deep or MNEMO_SCREENS=1) each is photographed at
 * 1280×800 and 900×650 in both schemes into test-results/screens/ for review.
 */
import { expect, test, type Page } from '@playwright/test';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { createVault, expectAccessible, lock, openMemories, PASSPHRASE, PHOTOS, shot, eachWithFakeApi, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
eachWithFakeApi((a, f) => ((app = a), (fake = f)));

const SIZES = [
  { width: 1280, height: 800 },
  { width: 900, height: 650 },
] as const;

/** axe in both schemes, then (when PHOTOS) a picture at both sizes in both schemes. */
async function screen(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name, { both: true });
  if (!PHOTOS) return;
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await shot(page, `a11y-${name}-${size.width}x${size.height}-${colorScheme}`);
    }
  }
  await page.setViewportSize(SIZES[0]);
  await page.emulateMedia({ colorScheme: 'light' });
}

// Six tests, so each stays far from the suite's time limit on 3 workers (each screen is analysed twice and
// photographed four times): first run in two, unlock, the chat and the memory editor, history, settings.
/** First run up to the recovery key's screen; checked on the way when `check`. Returns the recovery key. */
async function toRecoveryKey(page: Page, check: boolean): Promise<string> {
  if (check) await screen(page, '01-create-vault');
  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByLabel('Confirm passphrase').fill(PASSPHRASE);
  await page.getByRole('button', { name: 'Create vault' }).click();
  const key = (await page.getByLabel('Recovery key').textContent())!.trim();
  if (check) await screen(page, '02-recovery-key');
  return key;
}

test('the first-run screens (passphrase, recovery key) have no serious or critical axe violation, in light and dark', async () => {
  await toRecoveryKey(app.page, true);
});

test('the first-run screens (Connect to Claude, the empty chat) have no serious or critical axe violation, in light and dark', async () => {
  const { page } = app;
  const key = await toRecoveryKey(page, false);
  await page.getByLabel(/last group/).fill(key.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();
  await expect(page.getByRole('heading', { name: 'Connect to Claude' })).toBeVisible();
  await screen(page, '03-connect');
  await page.getByRole('button', { name: /Skip for now/ }).click();
  await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  await screen(page, '04-chat-empty');
});

test('the unlock screens, with the passphrase and with the recovery key, have no serious or critical axe violation, in light and dark', async () => {
  const { page } = app;
  await createVault(page);
  await lock(page);
  await screen(page, '10-unlock');
  await page.getByRole('button', { name: /use the recovery key/i }).click();
  await screen(page, '11-unlock-recovery');
});

/** A vault in use: one exchange in which Claude wrote /memories/prefs.md, its memory chip opened. */
async function chatWithMemory(page: Page): Promise<void> {
  await createVault(page);
  await setApiKey(app.session.unlocked(), fake.apiKey);
  fake.script(
    reply(text('Let me note that.'), memoryCall({ command: 'create', path: '/memories/prefs.md', file_text: '# Preferences\n- Drinks: `coffee`\n\n```ts\nconst drink = "coffee"; // kept\n```\n' })),
    reply(text('Noted: you like **coffee**.\n\n```ts\nconst answer: number = 42; // comment\nfunction f() { return "s"; }\n```')),
  );
  await page.getByRole('textbox', { name: 'Message' }).fill('I like coffee.');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted');
  await page.getByRole('button', { name: 'created /memories/prefs.md' }).click();
}

/** The Memories tab with prefs.md open in the editor. */
async function openPrefs(page: Page): Promise<void> {
  await page.getByRole('treeitem', { name: 'prefs.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('Preferences');
}

test('the chat and the memory screens have no serious or critical axe violation, in light and dark', async () => {
  const { page } = app;
  await chatWithMemory(page);
  await screen(page, '05-chat-reply');
  await openMemories(page);
  await screen(page, '06-memories-empty-selection');
  await openPrefs(page);
  await screen(page, '07-memories-editor');
});

test('a memory\'s history has no serious or critical axe violation, in light and dark', async () => {
  const { page } = app;
  await chatWithMemory(page);
  await openMemories(page);
  await openPrefs(page);
  await page.getByRole('button', { name: 'History' }).click();
  await screen(page, '08-memories-history');
});

test('the settings have no serious or critical axe violation, in light and dark', async () => {
  const { page } = app;
  await createVault(page);
  await setApiKey(app.session.unlocked(), fake.apiKey);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await screen(page, '09-settings');
});
