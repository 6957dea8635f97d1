/** Issue 13 items 2 and 3: keyboard and focus — tabs, focus after every screen change, the editor's Tab, approvals. */
import { expect, test } from '@playwright/test';
import { saveSettings } from '../../electron/core/chat/settings-store';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { freshApp, passApiKeyStep, lock, openMemories, PASSPHRASE, eachWithFakeApi, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const message = () => app.page.getByRole('textbox', { name: 'Message' });
const editor = () => app.page.getByRole('textbox', { name: 'Editor' });
const lastClaude = () => app.page.getByRole('article', { name: 'Claude' }).last();

test('the recovery-key screen starts at its heading, and entering the app puts focus in the message box', async () => {
  // First run, so not the ready app the other tests get.
  const first = await freshApp({ anthropicBaseURL: fake.baseURL });
  try {
    const { page } = first;
    await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
    await page.getByLabel('Confirm passphrase').fill(PASSPHRASE);
    await page.getByRole('button', { name: 'Create vault' }).click();
    await expect(page.getByRole('heading', { name: 'Keep this key safe' })).toBeFocused();
    const recoveryKey = (await page.getByLabel('Recovery key').textContent())!.trim();
    await page.getByLabel(/last group/).fill(recoveryKey.split('-').at(-1)!);
    await page.getByRole('button', { name: /saved my recovery key/i }).click();
    await passApiKeyStep(page);
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  } finally {
    await first.cleanup();
  }
});

test('arrow keys, Home and End move between the Chat, Memories and Settings tabs', async () => {
  const { page } = app;
  await page.getByRole('tab', { name: 'Chat' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Memories' })).toBeFocused();
  await expect(page.getByRole('tab', { name: 'Memories' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('End');
  await expect(page.getByRole('tab', { name: 'Settings' })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Chat' })).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
  // One Tab stop for the whole tab list.
  await expect(page.getByRole('tab', { name: 'Chat' })).toHaveAttribute('tabindex', '-1');
});

test('the top tabs are tabs, not boxes: the chosen one underlined, the focus ring shown only from the keyboard', async () => {
  const { page } = app;
  const look = (name: string) =>
    page.getByRole('tab', { name }).evaluate((el) => {
      const c = getComputedStyle(el);
      const probe = document.createElement('span');
      probe.style.color = 'var(--accent)';
      document.body.append(probe);
      const accent = getComputedStyle(probe).color;
      probe.remove();
      return { border: c.borderTopWidth, underline: c.boxShadow.includes(accent), outline: c.outlineStyle };
    });
  await page.getByRole('tab', { name: 'Memories' }).click();
  await expect(page.getByRole('tab', { name: 'Memories' })).toHaveAttribute('aria-selected', 'true');
  // Chosen with the mouse: underlined, no box around it and no ring (which would look like focus).
  expect(await look('Memories')).toEqual({ border: '0px', underline: true, outline: 'none' });
  expect(await look('Chat')).toEqual({ border: '0px', underline: false, outline: 'none' });
  // From the keyboard the focused tab gets the ring as well as the underline.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Settings' })).toBeFocused();
  expect(await look('Settings')).toEqual({ border: '0px', underline: true, outline: 'solid' });
});

test('Ctrl+1/2/3 put focus inside the section they show, never on the page body', async () => {
  const { page } = app;
  await page.keyboard.press('ControlOrMeta+3');
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeFocused();
  await page.keyboard.press('ControlOrMeta+2');
  await expect(page.getByRole('heading', { name: 'Memories', level: 1 })).toBeFocused();
  await page.keyboard.press('ControlOrMeta+1');
  await expect(message()).toBeFocused();
});

test('from the top of the window one Tab and Enter reach the message box', async () => {
  const { page } = app;
  // A click on the top bar's empty corner: the next Tab starts from the top of the window.
  await page.mouse.click(2, 2);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Skip to the message box' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(message()).toBeFocused();
});

test('a wrong passphrase puts focus back in the field, and the error is tied to it', async () => {
  const { page } = app;
  await lock(page);
  const field = page.getByLabel('Passphrase', { exact: true });
  await field.fill('not the passphrase');
  await field.press('Enter');
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(field).toBeFocused();
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(/passphrase/i);
});

test('Tab leaves the memory editor without changing the text; Ctrl+] indents, as the hint says', async () => {
  const { page } = app;
  await app.session.unlocked().memory.writeFile('/memories/profile.md', '# Profile', { mode: 'create', source: 'user' });
  await openMemories(page);
  await page.getByRole('treeitem', { name: 'profile.md' }).click();
  await editor().click();
  await page.keyboard.press('ControlOrMeta+Home');
  await page.keyboard.press('Tab');
  await expect(editor()).not.toBeFocused();
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  await expect(editor()).toHaveAccessibleDescription(/Tab leaves the editor.*Ctrl\+\] indents/);
  await editor().click();
  await page.keyboard.press('ControlOrMeta+]');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();
});

test('"Open in editor" puts focus in the editor of that memory', async () => {
  const { page } = app;
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/prefs.md', file_text: '# Preferences\n' })), reply(text('Noted.')));
  await message().fill('Remember this.');
  await message().press('Enter');
  await page.getByRole('button', { name: 'created /memories/prefs.md' }).click();
  await page.getByRole('button', { name: 'Open in editor' }).click();
  await expect(editor()).toBeFocused();
});

test('an approval card takes focus, so it is decided by keyboard', async () => {
  const { page } = app;
  await saveSettings(app.session.unlocked(), { approvalMode: true });
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/plan.md', file_text: 'plan' })), reply(text('Saved.')));
  await message().fill('Remember my plan.');
  await message().press('Enter');
  const card = page.getByRole('group', { name: 'Approve create /memories/plan.md' });
  await expect(card).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(card.getByRole('button', { name: 'Approve' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Saved.');
});

test('the delete-conversation confirmation takes focus, Escape closes it, and focus goes back to the menu button that opened it', async () => {
  const { page } = app;
  await page.keyboard.press('ControlOrMeta+N');
  // Delete is in the conversation's "⋯" menu (issue 20).
  const more = page.getByRole('button', { name: /^More actions for / });
  await expect(more).toHaveCount(1);
  await more.click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete conversation' });
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(more).toBeFocused();
});

test('an Enter or Escape that an input method still owns neither sends the message nor stops the reply', async () => {
  const { page } = app;
  await message().fill('日本語の入力');
  const press = (key: string, init: { isComposing?: boolean; keyCode?: number }) =>
    message().evaluate((el: HTMLElement, arg: { key: string; init: { isComposing?: boolean; keyCode?: number } }) => {
      el.dispatchEvent(new KeyboardEvent('keydown', { key: arg.key, bubbles: true, cancelable: true, ...arg.init }));
    }, { key, init });
  // While composing (isComposing), and the keydown that ends a composition with some macOS input methods (keyCode 229).
  await press('Enter', { isComposing: true });
  await press('Enter', { keyCode: 229 });
  await expect(message()).toHaveValue('日本語の入力');
  expect(fake.requests).toHaveLength(0);

  // A reply that streams is not stopped by an Escape the input method takes to cancel a composition (about 3 s of stream)…
  const long = 'Streaming along, a few words at a time. '.repeat(8);
  fake.script({ ...reply(text(long)), delayMs: 100, chunk: 10 });
  await message().press('Enter');
  await expect(page.locator('article.streaming')).toContainText('Streaming');
  await press('Escape', { isComposing: true });
  await expect(lastClaude()).toContainText(long.trim());
  await expect(page.getByText('Stopped.', { exact: true })).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Claude replied.' })).toHaveCount(1);

  // …while a plain Escape does stop one.
  fake.script({ ...reply(text(long)), delayMs: 100, chunk: 10 });
  await message().fill('Again, please.');
  await message().press('Enter');
  await expect(page.locator('article.streaming')).toContainText('Streaming');
  await message().press('Escape');
  await expect(page.getByText('Stopped.', { exact: true })).toBeVisible();
});
