/**
 * Right-to-left text in the chat (issue 21's bidi isolation): messages, replies, conversation titles
 * and memory paths written in Arabic or Hebrew, mixed with Latin letters and digits, each take their
 * own direction inside an isolated element, and a path's segments stay in order, left to right,
 * whatever script each segment is in. The window itself stays English and left to right.
 */
import { expect, test, type Locator } from '@playwright/test';
import { saveSettings, setApiKey } from '../../electron/core/chat/settings-store';
import { memoryCall, reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, lastReply, readyApp, send, shot, type FreshApp } from './helpers';

const ARABIC_MESSAGE = 'مرحبا يا Claude، عندي 3 ملاحظات عن مشروع Alpha-7';
const HEBREW_REPLY = 'שלום! אני שומר 2 קבצים עבור Alpha-7.';
const ARABIC_DIR = 'مشاريع';
const HEBREW_DIR = 'שלום 2';

let app: FreshApp;
let fake: FakeAnthropic;
test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  app = await readyApp({ anthropicBaseURL: fake.baseURL });
  await setApiKey(app.session.unlocked(), fake.apiKey);
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
});

/** The direction the element resolved to (dir=auto and <bdi> resolve from their own text); polled, as a message drawn while it streams is replaced once saved (a replaced element reads ""). */
const direction = (el: Locator) => el.evaluate((e) => getComputedStyle(e).direction);

/** A path's segments as drawn: their text, and whether each starts right of the one before (left-to-right order kept). */
async function segments(path: Locator): Promise<{ texts: string[]; inOrder: boolean; dirs: string[] }> {
  return path.evaluate((p) => {
    const parts = [...p.querySelectorAll(':scope > bdi')];
    const lefts = parts.map((b) => b.getBoundingClientRect().left);
    return {
      texts: parts.map((b) => b.textContent ?? ''),
      inOrder: lefts.every((x, i) => i === 0 || x > lefts[i - 1]!),
      dirs: parts.map((b) => getComputedStyle(b).direction),
    };
  });
}

test('Arabic and Hebrew messages, replies, titles and memory paths resolve their own direction; path segments keep their order', async () => {
  const { page } = app;
  const path = `/memories/${ARABIC_DIR}/${HEBREW_DIR}/plan-7.md`;
  fake.script(reply(text(HEBREW_REPLY), memoryCall({ command: 'create', path, file_text: 'خطة 1: Alpha' })), reply(text('Saved 2 notes for Alpha-7.')));
  await send(page, ARABIC_MESSAGE);
  await expect(lastReply(page)).toContainText('Saved 2 notes for Alpha-7.');

  // The page stays left to right; each message takes the direction of its own text.
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  const mine = page.locator('article.msg.user .body[dir="auto"]').last();
  await expect(mine).toHaveText(ARABIC_MESSAGE);
  await expect.poll(() => direction(mine)).toBe('rtl');
  const blocks = lastReply(page).locator('.md-block[dir="auto"]');
  await expect(blocks.first()).toContainText('שלום');
  await expect.poll(() => direction(blocks.first())).toBe('rtl');
  await expect.poll(() => direction(blocks.last())).toBe('ltr');

  // The conversation's title in the list (the Arabic message) is isolated in the row's button.
  const title = page.locator('.conv-list button.conv bdi').first();
  await expect(title).toHaveText(ARABIC_MESSAGE);
  await expect.poll(() => direction(title)).toBe('rtl');

  // The chip's path: left to right as a whole, each segment isolated in its own direction, in order.
  const chipPath = page.locator('.chip-head .memory-path').last();
  await expect.poll(() => direction(chipPath)).toBe('ltr');
  const drawn = await segments(chipPath);
  expect(drawn.texts).toEqual(['memories', ARABIC_DIR, HEBREW_DIR, 'plan-7.md']);
  expect(drawn.inOrder).toBe(true);
  expect(drawn.dirs).toEqual(['ltr', 'rtl', 'rtl', 'ltr']);
  await expect(page.getByRole('button', { name: `created ${path}` })).toBeVisible();
  await expectAccessible(page, 'the chat with right-to-left text');
  await shot(page, 'i18n-chat-rtl-transcript');

  // An approval card names a Hebrew folder and an Arabic file with digits: the same isolation and order.
  await saveSettings(app.session.unlocked(), { approvalMode: true });
  const asked = `/memories/${HEBREW_DIR}/خطة 3.md`;
  fake.script(reply(memoryCall({ command: 'create', path: asked, file_text: 'v2' })), reply(text('Done.')));
  await send(page, 'Save the plan, please.');
  const card = page.getByRole('group', { name: `Approve create ${asked}` });
  await expect(card).toBeVisible();
  const cardPath = card.locator('.memory-path').first();
  await expect.poll(() => direction(cardPath)).toBe('ltr');
  const inCard = await segments(cardPath);
  expect(inCard.texts).toEqual(['memories', HEBREW_DIR, 'خطة 3.md']);
  expect(inCard.inOrder).toBe(true);
  expect(inCard.dirs).toEqual(['ltr', 'rtl', 'rtl']);
  await shot(page, 'i18n-chat-rtl-approval');
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(lastReply(page)).toContainText('Done.');
});
