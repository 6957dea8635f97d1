/**
 * Issue 20's closing walk: the app used as someone coming from Claude Desktop
 * or ChatGPT would, from the first screen to the memory's history, by role and
 * label only. Each main screen is checked with axe (both themes) and
 * photographed in light and dark at 1280×800 and 900×650 into
 * test-results/screens/new-NN-<name>-<scheme>-<size>.png (under
 * MNEMO_SCREENS=1) for a person's review. Serial: one app, one vault, one fake
 * Claude for the whole walk, each test going on from where the one before
 * stopped.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import type { TranscriptEntry } from '../../electron/shared/chat';
import { memoryCall, reply, startFakeAnthropic, text, thinking, type FakeAnthropic } from '../fake-anthropic/server';
import { expectAccessible, freshApp, idle, lastReply, messageBox, PASSPHRASE, send, shot, type FreshApp } from './helpers';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
let fake: FakeAnthropic;
test.beforeAll(async () => {
  fake = await startFakeAnthropic();
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
  await app.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
});
test.afterAll(async () => {
  await app?.cleanup();
  await fake?.close();
});

const WIDE = { width: 1280, height: 800 } as const;
const SMALL = { width: 900, height: 650 } as const;

/** Checks the screen with axe, then photographs it in light and dark at both sizes; leaves it light at 1280×800. */
async function screen(page: Page, name: string, what: string): Promise<void> {
  await expectAccessible(page, what);
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shot(page, `new-${name}-${scheme}-${size.width}x${size.height}`);
    }
  }
  await page.setViewportSize(WIDE);
  await page.emulateMedia({ colorScheme: 'light' });
}

const lockButton = (page: Page) => page.getByRole('button', { name: 'Lock', exact: true });
const nav = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const row = (page: Page, title: string) => nav(page).getByRole('button', { name: title, exact: true });
const versionsOf = (where: Locator) => where.getByRole('group', { name: 'Versions of this message' });
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send' });

async function box(l: Locator) {
  const b = await l.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

/** Where a box starts and how wide it is: what must not move while text below it grows. */
const placeOf = (b: { x: number; y: number; width: number }) => ({ x: b.x, y: b.y, width: b.width });

/** A control's label on one line, whole: its text's line boxes share one top, and nothing overflows its box. */
async function expectOneLine(l: Locator, what: string): Promise<void> {
  const m = await l.evaluate((el) => {
    const tops = new Set<number>();
    const range = document.createRange();
    range.selectNodeContents(el);
    for (const r of range.getClientRects()) if (r.width > 1) tops.add(Math.round(r.top));
    return { lines: tops.size, sw: el.scrollWidth, cw: el.clientWidth };
  });
  expect.soft(m.lines, `${what} is on one line`).toBe(1);
  expect.soft(m.sw, `${what} fits its width`).toBeLessThanOrEqual(m.cw);
}

/**
 * The composer's Send, at both sizes: its word on one line and whole, and on the row of the tools (as tall as Attach,
 * level with it), however many tools the bar holds.
 */
async function expectSendInPlace(page: Page, where: string): Promise<void> {
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    const at = `${where} at ${size.width}×${size.height}`;
    await expectOneLine(sendButton(page), `Send on ${at}`);
    const [s, attach] = [await box(sendButton(page)), await box(page.getByRole('button', { name: 'Attach files…' }))];
    expect.soft(Math.abs(s.height - attach.height), `Send as tall as Attach on ${at}`).toBeLessThanOrEqual(1);
    expect.soft(Math.abs(s.y - attach.y), `Send on Attach's row on ${at}`).toBeLessThanOrEqual(1);
  }
  await page.setViewportSize(WIDE);
}

/** The meter's bar and word colours and the colour its level's token stands for. */
async function meterColours(page: Page): Promise<{ level: string; word: string; bar: string; text: string; token: string }> {
  return page.locator('.strength').evaluate((el) => {
    const level = el.getAttribute('data-level') ?? '';
    const wordEl = el.querySelector('.strength-word')!;
    const probe = document.createElement('span');
    probe.style.color = `var(--strength-${level})`;
    el.append(probe);
    const token = getComputedStyle(probe).color;
    probe.remove();
    return { level, word: wordEl.textContent ?? '', bar: getComputedStyle(el.querySelector('.bar')!).backgroundColor, text: getComputedStyle(wordEl).color, token };
  });
}

test('first run: show/hide keeps the passphrase, the meter is empty until typing and its colour goes with its word, the card stays put', async () => {
  const { page } = app;
  const field = page.getByLabel('Passphrase', { exact: true });
  const meter = page.getByRole('meter', { name: 'Passphrase strength' });
  const card = page.getByRole('form', { name: 'Create your memory vault' });
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(field).toBeFocused();
  await expect(meter).toHaveAttribute('aria-valuenow', '0');
  await expect(meter).toHaveAttribute('aria-valuetext', 'not rated yet');
  expect((await box(meter.locator('.bar'))).width).toBe(0);
  await screen(page, '01-create-vault', 'the create-vault screen');
  const before = await box(card);

  await field.pressSequentially('Football2024!!');
  await expect(meter).toHaveAttribute('aria-valuetext', /weak/);
  const weak = await meterColours(page);
  expect(weak.bar).toBe(weak.token);
  expect(weak.text).toBe(weak.token);
  expect(placeOf(await box(card)), 'the card does not move as the meter fills').toEqual(placeOf(before));

  const show = page.getByRole('button', { name: 'Show passphrase', exact: true });
  await show.click();
  await expect(field).toHaveAttribute('type', 'text');
  const hide = page.getByRole('button', { name: 'Hide passphrase', exact: true });
  expect(await hide.evaluate((el) => (el as HTMLElement).innerText), 'the word shown is Hide').toMatch(/^Hide/);
  await expect(field).toHaveValue('Football2024!!');
  await field.fill(PASSPHRASE);
  await page.getByLabel('Confirm passphrase').fill(PASSPHRASE);
  await expect(meter).toHaveAttribute('aria-valuetext', 'strong');
  const strong = await meterColours(page);
  expect(strong).toMatchObject({ level: 'strong', word: 'strong' });
  expect(strong.bar).toBe(strong.token);
  expect(strong.text).toBe(strong.token);
  expect(strong.bar).not.toBe(weak.bar);
  expect(placeOf(await box(card)), 'the card does not move when the passphrase is shown').toEqual(placeOf(before));
  await expect(page.getByText(/^Strength: strong$/)).toBeVisible();
  await screen(page, '02-create-vault-shown', 'the create-vault screen with the passphrase shown');
  await hide.click();
  await expect(field).toHaveAttribute('type', 'password');
  await expect(show).toBeVisible();

  await page.getByRole('button', { name: 'Create vault' }).click();
  const keyBox = page.getByLabel('Recovery key');
  await expect(page.getByRole('heading', { name: 'Keep this key safe' })).toBeFocused();
  await screen(page, '03-recovery-key', 'the recovery key');
  const key = (await keyBox.textContent())!.trim();
  await page.getByLabel(/last group/).fill(key.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();
});

test('Connect to Claude: a refused key is a 401 said at the key field, nothing saved; the right key is tested and saved', async () => {
  const { page } = app;
  await expect(page.getByRole('heading', { name: 'Connect to Claude' })).toBeVisible();
  const keyField = page.getByLabel('Anthropic API key');
  const form = page.getByRole('form', { name: 'API key' });
  await expect(keyField).toBeFocused();
  await screen(page, '04-connect', 'the connect step');
  await keyField.fill('sk-ant-api03-NotTheRightKey-000');
  await keyField.press('Enter');
  const alert = form.getByRole('alert');
  await expect(alert).toContainText('did not accept this API key (401)');
  await expect(keyField).toBeFocused();
  await expect(keyField).toHaveAttribute('aria-invalid', 'true');
  // Said where the user is: the alert is right under the field, in the card, not at the window's top.
  const [f, a] = [await box(keyField), await box(alert)];
  expect(a.y, 'the 401 is below the key field').toBeGreaterThanOrEqual(f.y + f.height - 1);
  expect(a.y - (f.y + f.height), 'the 401 is near the key field').toBeLessThan(120);
  await screen(page, '05-connect-401', 'the connect step with a refused key');

  await keyField.fill(fake.apiKey);
  await expect(alert).toHaveCount(0);
  await keyField.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'API key saved' })).toContainText('Anthropic accepted it.');
  // The answer is read in one line, below the key's buttons if it must, not squeezed into a column beside them.
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    await expectOneLine(page.getByRole('status').filter({ hasText: 'API key saved' }), `the key's status at ${size.width}×${size.height}`);
  }
  await screen(page, '06-connected', 'the connect step with a key saved');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(lockButton(page)).toBeVisible();
});

test('the empty chat: a focused message box, Send on one line at both sizes, the model picker a listbox beside it', async () => {
  const { page } = app;
  await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  await expect(messageBox(page)).toBeFocused();
  await messageBox(page).fill('x');
  await expectSendInPlace(page, 'the empty chat');
  await messageBox(page).fill('');
  await screen(page, '07-chat-empty', 'the empty chat');

  const picker = page.getByRole('combobox', { name: 'Model for this conversation' });
  const list = page.getByRole('listbox', { name: 'Model for this conversation' });
  await expect(picker).toHaveText(/^Default/);
  // Beside the composer: the picker sits on the Send button's row.
  const [p, s] = [await box(picker), await box(sendButton(page))];
  expect.soft(Math.abs(p.y + p.height / 2 - (s.y + s.height / 2)), 'the model picker on the Send row').toBeLessThan(s.height / 2);
  await picker.click();
  await expect(list).toBeVisible();
  await expect(list.getByRole('option', { name: /Claude Haiku 4\.5/ })).toContainText('200K context');
  await screen(page, '08-model-listbox', 'the model listbox open');
  await page.keyboard.press('Escape');
  await expect(list).toBeHidden();
  await expect(picker).toBeFocused();
});

test('first chat: a memory is written, its chip shows, the conversation is named automatically', async () => {
  const { page } = app;
  fake.extra.titleReply = 'Tea and Lisbon';
  fake.script(
    reply(text('Let me remember that.'), memoryCall({ command: 'create', path: '/memories/preferences.md', file_text: '# Preferences\n- Drinks tea, no sugar.\n- Lives in Lisbon.\n' })),
    reply(text('Noted: you drink **tea** without sugar, and you live in Lisbon.')),
  );
  await send(page, 'Please remember: I drink tea without sugar and I live in Lisbon.');
  await expect(lastReply(page)).toContainText('Noted');
  await idle(page);
  await expect(page.getByRole('button', { name: 'created /memories/preferences.md' })).toBeVisible();
  await expect(row(page, 'Tea and Lisbon')).toBeVisible();
  await expect(row(page, 'Tea and Lisbon')).toHaveAttribute('aria-current', 'true');
  // With "Edit last message" and the conversation's total in the bar too.
  await expect(page.getByRole('button', { name: 'Edit last message' })).toBeVisible();
  await expectSendInPlace(page, 'the first reply');
  // "Edit last message" is a tool of the bar like Attach: as tall as it, on its row, at both sizes.
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    const [edit, attach] = [await box(page.getByRole('button', { name: 'Edit last message' })), await box(page.getByRole('button', { name: 'Attach files…' }))];
    expect.soft(Math.abs(edit.height - attach.height), `Edit last message as tall as Attach at ${size.width}×${size.height}`).toBeLessThanOrEqual(1);
    expect.soft(Math.abs(edit.y - attach.y), `Edit last message on Attach's row at ${size.width}×${size.height}`).toBeLessThanOrEqual(1);
  }
  await page.setViewportSize(WIDE);
  await screen(page, '09-first-reply', 'the first reply with a memory chip');
});

test('regenerate twice: ‹ 3 / 3 › on the reply, and back to ‹ 2 / 3 ›', async () => {
  const { page } = app;
  fake.script(reply(text('Porto is three hours north by train.')));
  await send(page, 'How far is Porto?');
  await expect(lastReply(page)).toContainText('Porto is three hours');
  await idle(page);
  for (const words of ['Porto: about three hours by train.', 'By train, Porto is about 3 hours away.']) {
    fake.script(reply(text(words)));
    await lastReply(page).hover();
    await lastReply(page).getByRole('button', { name: 'Regenerate' }).click();
    await expect(lastReply(page)).toContainText(words);
    await idle(page);
  }
  const versions = versionsOf(lastReply(page));
  await expect(versions).toContainText('3 / 3');
  await versions.getByRole('button', { name: 'Previous version' }).click();
  await expect(versions).toContainText('2 / 3');
  await expect(lastReply(page)).toContainText('Porto: about three hours');
  // The earlier exchange has no versions: only the regenerated reply shows a switch.
  await expect(versionsOf(page.getByRole('main'))).toHaveCount(1);
  await screen(page, '10-regenerated', 'a reply with three versions');
});

test('editing an earlier message starts a branch; ‹ 1 / 2 › on the message brings the old one back', async () => {
  const { page } = app;
  const you = page.getByRole('article', { name: 'You' });
  const first = you.first();
  fake.script(reply(text('Noted: coffee, black, and Lisbon.')));
  await first.hover();
  await first.getByRole('button', { name: 'Edit message' }).click();
  const editor = page.getByRole('textbox', { name: 'Your edit' });
  await expect(editor).toBeFocused();
  await screen(page, '11-editing', 'a message being edited');
  await editor.fill('Please remember: I drink black coffee and I live in Lisbon.');
  await editor.press('Enter');
  await expect(lastReply(page)).toContainText('coffee, black');
  await idle(page);
  await expect(you).toHaveCount(1);
  await expect(versionsOf(you.first())).toContainText('2 / 2');
  await versionsOf(you.first()).getByRole('button', { name: 'Previous version' }).click();
  await expect(you).toHaveCount(2);
  await expect(you.last()).toContainText('How far is Porto?');
  await expect(versionsOf(you.first())).toContainText('1 / 2');
  // The old branch comes back as it was left: the reply version picked before the edit.
  await expect(versionsOf(lastReply(page))).toContainText('2 / 3');
  await screen(page, '12-branch', 'a conversation with a branch');
});

test('Copy reply puts the reply’s Markdown on the clipboard', async () => {
  const { page } = app;
  await lastReply(page).hover();
  const copy = lastReply(page).getByRole('button', { name: 'Copy reply' });
  await copy.click();
  await expect(copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Porto: about three hours by train.');
});

test('thinking, turned on in Settings, stays as a collapsed section that opens again', async () => {
  const { page } = app;
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await screen(page, '13-settings', 'Settings');
  await page.getByRole('checkbox', { name: /Show Claude’s thinking/ }).check();
  await page.getByRole('button', { name: 'Save Claude and memory settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  await page.getByRole('tab', { name: /^Chat/ }).click();

  await page.keyboard.press('Control+n');
  await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  fake.extra.titleReply = 'Three days in Porto';
  fake.script(reply(thinking('They want a short plan. Three days.'), text('Day 1: Ribeira. Day 2: Livraria Lello. Day 3: the Douro.')));
  await send(page, 'Plan three days in Porto.');
  await expect(lastReply(page)).toContainText('Day 3');
  await idle(page);
  const section = lastReply(page).getByRole('group').filter({ hasText: 'Thinking' });
  const details = lastReply(page).locator('details');
  await expect(details).toHaveJSProperty('open', false);
  await expect(page.getByText('They want a short plan.')).toBeHidden();
  await screen(page, '14-thinking-collapsed', 'a reply with its thinking collapsed');
  await section.getByText('Thinking', { exact: true }).click();
  await expect(page.getByText('They want a short plan.')).toBeVisible();
  await screen(page, '15-thinking-open', 'a reply with its thinking open');
});

test('rename a conversation inline: Escape cancels, Enter keeps the new title', async () => {
  const { page } = app;
  await row(page, 'Tea and Lisbon').hover();
  await nav(page).getByRole('button', { name: 'More actions for Tea and Lisbon' }).click();
  await page.getByRole('menuitem', { name: 'Rename' }).click();
  const field = nav(page).getByRole('textbox', { name: 'Conversation title' });
  await expect(field).toBeFocused();
  await field.fill('Something else');
  await screen(page, '16-renaming', 'a conversation being renamed');
  await page.keyboard.press('Escape');
  await expect(field).toHaveCount(0);
  await expect(row(page, 'Tea and Lisbon')).toBeVisible();
  await expect(row(page, 'Something else')).toHaveCount(0);
  await row(page, 'Tea and Lisbon').focus();
  await page.keyboard.press('F2');
  await field.fill('Drinks and home');
  await page.keyboard.press('Enter');
  await expect(row(page, 'Drinks and home')).toBeFocused();
});

test('a temporary chat looks different and says nothing is kept', async () => {
  const { page } = app;
  const header = page.getByRole('group', { name: 'This conversation' });
  const normalBg = await page.locator('.conversation').evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.getByRole('button', { name: 'New temporary chat' }).click();
  await expect(header).toContainText('Temporary chat: not kept');
  await expect(page.getByRole('heading', { name: 'Temporary chat', exact: true })).toBeVisible();
  await expect(page.getByText(/Nothing of this chat is kept/)).toBeVisible();
  const tempBg = await page.locator('.conversation').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(tempBg, 'a temporary chat has its own colour').not.toBe(normalBg);
  await screen(page, '17-temporary-empty', 'an empty temporary chat');
  fake.script(reply(text('Four. This chat is forgotten when you lock.')));
  await send(page, 'Just between us: what is 2 + 2?');
  await expect(lastReply(page)).toContainText('forgotten');
  await idle(page);
  // The header keeps one row beside the temporary label: the meter's words are whole, or left to its tooltip; never "325 …".
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    const words = header.getByText(/ of 1,000,000 tokens$/);
    if (await words.isVisible()) await expectOneLine(words, `the context meter's words at ${size.width}×${size.height}`);
  }
  await screen(page, '18-temporary-reply', 'a temporary chat with a reply');
});

test('Ctrl+/ opens the shortcut sheet; Ctrl+K goes to a conversation', async () => {
  const { page } = app;
  await messageBox(page).focus();
  await page.keyboard.press('Control+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  await expect(sheet.getByRole('row').filter({ hasText: 'Go to a conversation' })).toContainText('Ctrl+K');
  await screen(page, '19-shortcuts', 'the shortcut sheet');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(messageBox(page)).toBeFocused();

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Go to' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.type('porto');
  await expect(palette.getByRole('option').first()).toContainText('Three days in Porto');
  await screen(page, '20-palette', 'the Go to palette');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  await expect(lastReply(page)).toContainText('Day 3');
});

test('after a few weeks: the list is grouped by day, pins and archives; search as you type ignores accents', async () => {
  const { page } = app;
  const store = new Conversations(app.session.unlocked());
  const dayStart = (days: number) => {
    const d = new Date();
    return new Date(d.getFullYear(), d.getMonth(), d.getDate() - days).getTime() + 12 * 3_600_000;
  };
  for (const [title, days, words] of [
    ['Portuguese for the bank', 1, 'Como compro ações do banco?'],
    ['Birthday present ideas', 3, 'A book, a plant, or a day out?'],
    ['Tax return questions', 12, 'Which forms do I need this year?'],
    ['Garden beds for next spring, and which tomatoes grow best in pots on a balcony', 40, 'Cherry tomatoes in 20-litre pots.'],
  ] as const) {
    const c = await store.create();
    const transcript: TranscriptEntry[] = [{ role: 'user', text: words, at: dayStart(days) }];
    await store.update(c.id, (x) => ({ ...x, title, updated: dayStart(days), transcript }));
  }
  // The list is read again on unlock, as after a restart.
  await lockButton(page).click();
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  await screen(page, '21-unlock', 'the unlock screen');
  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByLabel('Passphrase', { exact: true }).press('Enter');
  await expect(lockButton(page)).toBeVisible();

  for (const name of ['Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days']) await expect(nav(page).getByRole('list', { name, exact: true })).toBeVisible();
  await expect(nav(page).getByRole('list', { name: 'Yesterday', exact: true }).getByRole('button', { name: 'Portuguese for the bank', exact: true })).toBeVisible();

  await row(page, 'Birthday present ideas').hover();
  await nav(page).getByRole('button', { name: 'More actions for Birthday present ideas' }).click();
  await page.getByRole('menuitem', { name: 'Pin to top' }).click();
  await expect(nav(page).getByRole('list', { name: 'Pinned', exact: true }).getByRole('button', { name: 'Birthday present ideas', exact: true })).toBeVisible();
  await row(page, 'Tax return questions').hover();
  await nav(page).getByRole('button', { name: 'More actions for Tax return questions' }).click();
  await page.getByRole('menuitem', { name: 'Archive' }).click();
  await expect(row(page, 'Tax return questions')).toHaveCount(0);
  await expect(nav(page).getByRole('button', { name: /^Archived \(1\)/ })).toBeVisible();
  await screen(page, '22-conversation-list', 'the conversation list, grouped, pinned and archived');

  const search = page.getByRole('searchbox', { name: 'Search conversations' });
  await search.pressSequentially('acoes');
  const results = nav(page).getByRole('list', { name: 'Search results' });
  const hit = results.getByRole('button', { name: /^Portuguese for the bank/ });
  await expect(hit).toBeVisible();
  await expect(hit.locator('mark').first()).toHaveText('ações');
  await screen(page, '23-conversation-search', 'conversation search results');
  await search.fill('');
  await expect(results).toHaveCount(0);
});

test('memory: the pane beside the chat from the header, then the tree, the editor and the history in Memories', async () => {
  const { page } = app;
  await row(page, 'Drinks and home').click();
  const toggle = page.getByRole('button', { name: 'Memory', exact: true });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const pane = page.getByRole('complementary', { name: /^Memory of / });
  await pane.getByRole('treeitem', { name: /preferences\.md/ }).click();
  await expect(pane.getByRole('textbox', { name: 'Editor' })).toContainText('Drinks tea');
  await expectSendInPlace(page, 'the chat with the memory pane open');
  await screen(page, '24-memory-pane', 'the memory pane beside the chat');
  await toggle.click();
  await expect(pane).toHaveCount(0);

  await page.getByRole('tab', { name: /^Memories/ }).click();
  await expect(page.getByRole('heading', { name: 'Memories', level: 1 })).toBeVisible();
  const item = page.getByRole('treeitem', { name: 'preferences.md' });
  await expect(item).toBeVisible();
  await screen(page, '25-memories', 'the Memories tab');
  await item.click();
  const editor = page.getByRole('textbox', { name: 'Editor' });
  await expect(editor).toContainText('Lives in Lisbon');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('\n- Prefers trains to planes.');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();
  await screen(page, '26-memory-editing', 'a memory with unsaved changes');
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/preferences.md')).toContain('Prefers trains to planes.');

  await page.getByRole('button', { name: 'History' }).click();
  await expect(page.getByText(/version 2/i).first()).toBeVisible();
  await screen(page, '27-memory-history', 'a memory’s history');
});
