/**
 * A whole flow by keyboard alone — create the vault, connect, chat, open and
 * edit a memory, lock, unlock — with no click anywhere. Every step finds its
 * control with Tab (or Shift+Tab) from where focus was put, within a bound.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, PASSPHRASE, eachWithFakeApi, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
eachWithFakeApi((a, f) => ((app = a), (fake = f)));

/** Presses Tab (or Shift+Tab) until `target` has focus; fails after `max` presses. Returns how many it took. */
async function tabTo(page: Page, target: Locator, opts: { back?: boolean; max?: number } = {}): Promise<number> {
  for (let n = 0; n <= (opts.max ?? 12); n++) {
    if (await target.evaluate((el) => el === document.activeElement || el.contains(document.activeElement)).catch(() => false)) return n;
    await page.keyboard.press(opts.back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Could not reach ${String(target)} by keyboard within ${opts.max ?? 12} presses.`);
}

test('create, connect, chat, open and edit a memory, lock and unlock, by keyboard alone', async () => {
  const { page } = app;
  const kb = page.keyboard;

  // Create: focus starts in the passphrase field.
  await expect(page.getByLabel('Passphrase', { exact: true })).toBeFocused();
  await kb.type(PASSPHRASE);
  await tabTo(page, page.getByLabel('Confirm passphrase'));
  await kb.type(PASSPHRASE);
  await kb.press('Enter');

  // Recovery key: focus on the heading; Tab to the check field, type its last group, Enter.
  const key = page.getByLabel('Recovery key');
  await expect(page.getByRole('heading', { name: 'Keep this key safe' })).toBeFocused();
  const lastGroup = (await key.textContent())!.trim().split('-').at(-1)!;
  await tabTo(page, page.getByLabel(/last group/));
  await kb.type(lastGroup);
  await kb.press('Enter');

  // Connect: focus in the key field; type it, Enter saves; Tab to Continue.
  await expect(page.getByLabel('Anthropic API key')).toBeFocused();
  await kb.type(fake.apiKey);
  await kb.press('Enter');
  await expect(page.getByRole('status')).toContainText('API key saved');
  await tabTo(page, page.getByRole('button', { name: 'Continue' }));
  await kb.press('Enter');

  // Chat: focus in the message box.
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toBeFocused();
  await expectAccessible(page, 'chat, keyboard flow');
  fake.script(reply(text('Noting that.'), memoryCall({ command: 'create', path: '/memories/prefs.md', file_text: '# Preferences\n- tea\n' })), reply(text('Noted: tea.')));
  await kb.type('I like tea.');
  await kb.press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted: tea.');
  // The streamed reply is replaced by the saved one when the turn ends; tab to the chip of the saved one.
  await expect(page.locator('article[aria-busy="true"]')).toHaveCount(0);

  // Open the memory from its chip: back from the message box to the chip, Enter, Tab to "Open in editor", Enter.
  const chip = page.getByRole('button', { name: 'created /memories/prefs.md' });
  await tabTo(page, chip, { back: true });
  await kb.press('Enter');
  await tabTo(page, page.getByRole('button', { name: 'Open in editor' }));
  await kb.press('Enter');
  const editor = page.getByRole('textbox', { name: 'Editor' });
  await expect(editor).toBeFocused();

  // Edit and save: the text is typed where the cursor is; Tab leaves the editor instead of indenting.
  await kb.press('ControlOrMeta+End');
  await kb.type('- green tea');
  await kb.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/prefs.md')).toBe('# Preferences\n- tea\n- green tea');
  await kb.press('Tab');
  await expect(editor).not.toBeFocused();

  // Lock (Ctrl+Shift+L) and unlock: focus is in the passphrase field.
  await kb.press('ControlOrMeta+Shift+L');
  const pass = page.getByLabel('Passphrase', { exact: true });
  await expect(pass).toBeFocused();
  await kb.type(PASSPHRASE);
  await kb.press('Enter');
  await expect(box).toBeFocused();
});
