/**
 * Attachments end to end: "Attach files…" through main's dialog (stubbed by
 * the harness), drop and paste onto the composer, chips that can be removed,
 * clear errors for files that cannot go, and thumbnails and file cards in the
 * sent message, also after the conversation is opened again.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { attachmentBlocks, reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { pdf, png } from '../fixtures/attachments/make';
import { expectAccessible, shot, type FreshApp, readyApp, newConversationButton } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;
let files: string;
let picked: string[] = [];

test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  files = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attach-files-'));
  picked = [];
  app = await readyApp({ anthropicBaseURL: fake.baseURL, pickFiles: async () => picked });
  await setApiKey(app.session.unlocked(), fake.apiKey);
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
  await fs.rm(files, { recursive: true, force: true });
});

const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const chips = (page: Page) => page.getByRole('list', { name: 'Attachments to send' });
const lastYou = (page: Page) => page.getByRole('article', { name: 'You' }).last();

/** Drops files made in the page onto the composer, as a person dragging them from the desktop would. */
async function drop(page: Page, list: Array<{ name: string; type: string; base64?: string; size?: number }>): Promise<void> {
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const f of items) {
      const bytes = f.base64 !== undefined ? Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0)) : new Uint8Array(f.size ?? 0);
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return dt;
  }, list);
  await page.locator('form.composer').dispatchEvent('dragover', { dataTransfer });
  await page.locator('form.composer').dispatchEvent('drop', { dataTransfer });
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

test('files picked with “Attach files…” go to Claude and show as a thumbnail and file cards, also after reopening', async () => {
  // Many steps (a turn, a reopen, axe in two themes) on a machine shared by several test runs.
  test.slow();
  const { page } = app;
  await fs.writeFile(path.join(files, 'sunset.png'), png(120, 80, [230, 120, 40]));
  await fs.writeFile(path.join(files, 'report.pdf'), pdf(2));
  await fs.writeFile(path.join(files, 'notes.txt'), 'Budget: 1200\n');
  picked = ['sunset.png', 'report.pdf', 'notes.txt'].map((n) => path.join(files, n));

  // By keyboard: Tab to the button, Enter opens the dialog; focus comes back to the message box.
  await message(page).focus();
  // Send is disabled while the box is empty, so the next stop is the attach button.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Attach files…' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chips(page).getByRole('listitem')).toHaveCount(3);
  await expect(chips(page)).toContainText('sunset.png');
  await expect(chips(page)).toContainText('PDF');
  await expect(message(page)).toBeFocused();
  await expect(page.getByRole('status').filter({ hasText: 'Attached sunset.png, report.pdf, notes.txt.' })).toHaveCount(1);

  fake.script(reply(text('An orange sunset, a two-page report and a budget note.')));
  await message(page).fill('What did I send?');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('An orange sunset');
  expect(attachmentBlocks(fake.requests[0]!).map((b) => [b.type, b.source.type, b.source.media_type])).toEqual([
    ['image', 'base64', 'image/png'],
    ['document', 'base64', 'application/pdf'],
    ['document', 'text', 'text/plain'],
  ]);

  const shows = async () => {
    const img = lastYou(page).getByRole('img', { name: 'sunset.png' });
    await expect(img).toBeVisible();
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(120);
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    await expect(lastYou(page).getByRole('listitem').filter({ hasText: 'report.pdf' })).toContainText('PDF');
    await expect(lastYou(page).getByRole('listitem').filter({ hasText: 'notes.txt' })).toContainText('Text · 13 B');
  };
  await shows();
  await expect(chips(page)).toHaveCount(0);

  // Another conversation, then back: the attachments come from the vault.
  await newConversationButton(page).click();
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(0);
  await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'What did I send?', exact: true }).click();
  await shows();

  // Chips waiting beside the sent thumbnail and cards: checked by axe in light and dark, and photographed in both.
  await drop(page, [{ name: 'diagram.png', type: 'image/png', base64: b64(png(10, 10)) }, { name: 'minutes.txt', type: 'text/plain', base64: b64(Buffer.from('Agreed: ship Friday.')) }]);
  await expect(chips(page).getByRole('listitem')).toHaveCount(2);
  await expectAccessible(page, 'attachments');
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await shot(page, `attachments-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  for (const name of ['diagram.png', 'minutes.txt']) await page.getByRole('button', { name: `Remove ${name}` }).click();
  await expect(chips(page)).toHaveCount(0);
});

test('a pasted screenshot and dropped files become chips; a chip can be removed by keyboard and is not sent', async () => {
  const { page } = app;
  await message(page).focus();
  await page.evaluate((base64) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'image.png', { type: 'image/png' }));
    document.querySelector('textarea')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, b64(png(4, 4)));
  await expect(chips(page)).toContainText('image.png');
  await drop(page, [{ name: '../../etc/passwd\u202Etxt.png', type: 'image/png', base64: b64(png(2, 2)) }, { name: 'keep.txt', type: 'text/plain', base64: b64(Buffer.from('keep me')) }]);
  await expect(chips(page).getByRole('listitem')).toHaveCount(3);
  // The name is cleaned in main: no folders, no right-to-left override.
  await expect(chips(page)).toContainText('passwdtxt.png');
  await page.getByRole('button', { name: 'Remove passwdtxt.png' }).focus();
  await page.keyboard.press('Enter');
  await expect(chips(page).getByRole('listitem')).toHaveCount(2);
  await expect(message(page)).toBeFocused();

  fake.script(reply(text('Got them.')));
  await message(page).fill('Two files');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Got them.');
  const sent = attachmentBlocks(fake.requests[0]!);
  expect(sent.map((b) => b.title ?? b.source.media_type)).toEqual(['image/png', 'keep.txt']);

  // Editing the message shows its files with its words, and sends them again with the new words.
  await page.getByRole('button', { name: 'Edit last message' }).click();
  const edited = page.getByRole('textbox', { name: 'Your edit' });
  await expect(edited).toHaveValue('Two files');
  await expect(lastYou(page).getByRole('list', { name: 'Attachments' }).getByRole('listitem')).toHaveCount(2);
  await expect(lastYou(page)).toContainText('keep.txt');
  fake.script(reply(text('Got them again.')));
  await edited.fill('The two files again');
  await edited.press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Got them again.');
  expect(attachmentBlocks(fake.requests.at(-1)!).map((b) => b.title ?? b.source.media_type)).toEqual(['image/png', 'keep.txt']);
  await expect(lastYou(page).getByRole('list', { name: 'Attachments' }).getByRole('listitem')).toHaveCount(2);
});

test('files that cannot go are refused with a clear, announced error and nothing is sent', async () => {
  const { page } = app;
  await drop(page, [
    { name: 'cat.png', type: 'image/png', base64: b64(Buffer.from('<!doctype html><script>alert(1)</script>')) },
    { name: 'empty.txt', type: 'text/plain', base64: '' },
    { name: 'huge.pdf', type: 'application/pdf', size: 50_000_000 },
    { name: 'bomb.gif', type: 'image/gif', base64: b64(Buffer.from('474946383961ffffffff00000000002c00000000010001000002024401003b', 'hex')) },
    { name: 'ok.png', type: 'image/png', base64: b64(png(3, 3)) },
  ]);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('“cat.png” is HTML or SVG markup, which cannot be attached.');
  await expect(alert).toContainText('“empty.txt” is empty, so there is nothing to attach.');
  await expect(alert).toContainText('“huge.pdf” is 50.0 MB; attachments can be at most 23.0 MB');
  await expect(alert).toContainText('“bomb.gif” is 65535×65535 pixels');
  await expect(chips(page).getByRole('listitem')).toHaveCount(1);
  await expectAccessible(page, 'attachment errors');

  // 101 images: main holds at most 100 for one message.
  await drop(page, Array.from({ length: 100 }, (_, i) => ({ name: `p${i}.png`, type: 'image/png', base64: b64(png(1, 1)) })));
  await expect(chips(page).getByRole('listitem')).toHaveCount(100);
  await expect(page.getByRole('alert')).toContainText('“p99.png” was not added: one message can carry at most 100 attachments.');
  expect(fake.requests).toHaveLength(0);
});

test('an image alone is a message: Send works with an empty box, and the conversation is named after the file', async () => {
  const { page } = app;
  await fs.writeFile(path.join(files, 'chart.png'), png(40, 30, [20, 90, 200]));
  picked = [path.join(files, 'chart.png')];
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await page.getByRole('button', { name: 'Attach files…' }).click();
  await expect(chips(page).getByRole('listitem')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  fake.script(reply(text('A blue chart.')));
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('A blue chart.');
  expect(attachmentBlocks(fake.requests[0]!).map((b) => b.type)).toEqual(['image']);
  await expect(lastYou(page).getByRole('img', { name: /chart\.png/ })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'chart.png', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit last message' })).toBeVisible();
});
