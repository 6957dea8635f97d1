/**
 * Issue 20, "a window people choose over Claude Desktop": the whole first-use
 * path walked as a newcomer would, by role and label only, photographed at
 * each screen (both themes, both sizes where the screen's layout matters) into
 * test-results/screens/walk-NN-<name>-<scheme>-<size>.png for a designer's
 * review, with layout checks for what the review found (labels not clipped,
 * things that belong together lined up). Serial: one app, one vault, one
 * fake Claude for the whole walk.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { memoryCall, reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { freshApp, PASSPHRASE, shot, type FreshApp } from './helpers';

test.describe.configure({ mode: 'serial' });

let app: FreshApp;
let fake: FakeAnthropic;
test.beforeAll(async () => {
  fake = await startFakeAnthropic();
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
});
test.afterAll(async () => {
  await app?.cleanup();
  await fake?.close();
});

const WIDE = { width: 1280, height: 800 } as const;
const SMALL = { width: 900, height: 650 } as const;

/** Photographs the screen in light and dark, at both sizes unless `sizes` says otherwise; leaves light at 1280×800. */
async function screens(page: Page, name: string, sizes: readonly { width: number; height: number }[] = [WIDE, SMALL]): Promise<void> {
  for (const size of sizes) {
    await page.setViewportSize(size);
    if (await lockButton(page).isVisible()) await expectWindowFixed(page, `${name} at ${size.width}×${size.height}`);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shot(page, `walk-${name}-${scheme}-${size.width}x${size.height}`);
    }
  }
  await page.setViewportSize(WIDE);
  await page.emulateMedia({ colorScheme: 'light' });
}

const lockButton = (page: Page) => page.getByRole('button', { name: 'Lock', exact: true });

/** The app's window never scrolls as a whole (its panes scroll inside it): the top bar stays where it is. */
async function expectWindowFixed(page: Page, where: string): Promise<void> {
  const [scroll, height] = await page.evaluate(() => [document.scrollingElement!.scrollHeight, innerHeight]);
  expect.soft(scroll, `the window does not scroll on ${where}`).toBeLessThanOrEqual(height);
}

/** Two controls sit on one row: their vertical centres are within half a height of each other. */
async function expectSameRow(a: Locator, b: Locator, what: string): Promise<void> {
  const [x, y] = [(await a.boundingBox())!, (await b.boundingBox())!];
  expect.soft(Math.abs(x.y + x.height / 2 - (y.y + y.height / 2)), what).toBeLessThan(Math.min(x.height, y.height) / 2);
}

/** The screen's main action is filled with the accent, unlike the plain buttons (issue 20: a design people trust on sight). */
async function expectPrimary(button: Locator): Promise<void> {
  const [fill, accent] = await button.evaluate((el) => {
    const probe = document.createElement('span');
    probe.style.background = 'var(--accent)';
    el.parentElement!.append(probe);
    const colour = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return [getComputedStyle(el).backgroundColor, colour];
  });
  expect.soft(fill, `"${await button.textContent()}" is filled with the accent`).toBe(accent);
}

/** Text a person can read whole: the element's content is not cut by its own box. */
async function expectNotClipped(l: Locator, what: string): Promise<void> {
  const box = await l.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth, sh: el.scrollHeight, ch: el.clientHeight }));
  expect.soft(box.sw, `${what} fits its width`).toBeLessThanOrEqual(box.cw);
  expect.soft(box.sh, `${what} fits its height`).toBeLessThanOrEqual(box.ch);
}

/** A button's label stays on one line (no wrapped "Test / connection"): its text's line boxes share one top. */
async function expectOneLine(l: Locator, what: string): Promise<void> {
  const tops = await l.evaluate((el) => {
    const seen = new Set<number>();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      // Text only a screen reader gets (.sr-only, one pixel wide) is not a visible line.
      if (!n.textContent?.trim() || n.parentElement!.getBoundingClientRect().width <= 1) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) if (r.width > 1) seen.add(Math.round(r.top));
    }
    return seen.size;
  });
  expect.soft(tops, `${what} is on one line`).toBeLessThanOrEqual(1);
}

/** Pieces of text of mixed sizes (keys and the words between them) on one line: every piece overlaps every other vertically. */
async function expectOneBand(l: Locator, what: string): Promise<void> {
  const oneBand = await l.evaluate((el) => {
    const rects: DOMRect[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent?.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      rects.push(...[...range.getClientRects()].filter((r) => r.width > 1));
    }
    return Math.max(...rects.map((r) => r.top)) < Math.min(...rects.map((r) => r.bottom));
  });
  expect.soft(oneBand, `${what} is on one line`).toBe(true);
}

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const nav = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });

test('first run: a weak passphrase is refused, a good one makes the vault, the recovery key is kept, Claude is connected', async () => {
  const { page } = app;
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expectPrimary(page.getByRole('button', { name: 'Create vault' }));
  await screens(page, '01-create-vault');

  // A weak passphrase is named as weak and refused; nothing is made.
  await page.getByLabel('Passphrase', { exact: true }).fill('password123456');
  await page.getByLabel('Confirm passphrase').fill('password123456');
  await expect(page.getByRole('meter', { name: 'Passphrase strength' })).toHaveAttribute('aria-valuetext', 'too weak');
  await page.getByRole('button', { name: 'Create vault' }).click();
  await expect(page.getByRole('alert')).toContainText(/too weak/);
  expect(await app.session.exists()).toBe(false);
  await screens(page, '02-weak-passphrase', [WIDE]);

  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByLabel('Confirm passphrase').fill(PASSPHRASE);
  await expect(page.getByRole('meter', { name: 'Passphrase strength' })).toHaveAttribute('aria-valuetext', 'strong');
  await screens(page, '03-strong-passphrase', [WIDE]);
  await page.getByRole('button', { name: 'Create vault' }).click();

  const keyBox = page.getByLabel('Recovery key');
  await expect(page.getByRole('heading', { name: 'Keep this key safe' })).toBeFocused();
  const key = (await keyBox.textContent())!.trim();
  await expectNotClipped(keyBox, 'the recovery key');
  await expectPrimary(page.getByRole('button', { name: /saved my recovery key/i }));
  await screens(page, '04-recovery-key');
  // Copied by hand from the screen, no group is cut across two lines, in the narrow window too.
  await page.setViewportSize(SMALL);
  const cutGroups = await keyBox.evaluate((el) => {
    const text = el.firstChild ? el.textContent! : '';
    const cut: string[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(n);
      if (n.textContent!.replace(/-/g, '').length > 0 && new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) cut.push(n.textContent!);
    }
    return { cut, text };
  });
  expect.soft(cutGroups.cut, 'recovery key groups cut across lines').toEqual([]);
  await page.setViewportSize(WIDE);
  await page.getByLabel(/last group/).fill(key.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();

  await expect(page.getByRole('heading', { name: 'Connect to Claude' })).toBeVisible();
  await expect(page.getByLabel('Anthropic API key')).toBeFocused();
  // The card's text keeps the spacing scale: no gap between its paragraphs is wider than a --space-5 step (24 px).
  const gaps = await page.getByRole('group', { name: 'Connect to Claude' }).evaluate((card) => {
    // A box drawn as its children (display: contents, as the key's fields are) counts as those children.
    const blocks = (el: Element): Element[] => [...el.children].flatMap((k) => (getComputedStyle(k).display === 'contents' ? blocks(k) : [k]));
    const kids = blocks(card).filter((k) => k.getBoundingClientRect().height > 0);
    return kids.slice(1).map((k, i) => Math.round(k.getBoundingClientRect().top - kids[i]!.getBoundingClientRect().bottom));
  });
  expect.soft(Math.max(...gaps), `gaps in the connect card: ${gaps.join(', ')}`).toBeLessThanOrEqual(24);
  await screens(page, '05-connect');
  await page.getByLabel('Anthropic API key').fill(fake.apiKey);
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'API key saved' })).toBeVisible();
  fake.script(reply(text('.')));
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();
  await screens(page, '06-connected', [WIDE]);
  await expectOneLine(page.getByRole('button', { name: 'Test connection' }), 'Test connection');
  await expectOneLine(page.getByRole('button', { name: 'Remove key' }), 'Remove key');
  await expectPrimary(page.getByRole('button', { name: 'Continue' }));
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(lockButton(page)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Start a conversation' })).toBeVisible();
  await expect(messageBox(page)).toBeFocused();
  await screens(page, '07-chat-empty');
  // As in other chat apps, New conversation comes first in the rail; the project it goes to is picked below it.
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    const [made, project] = [await page.getByRole('button', { name: 'New conversation', exact: true }).boundingBox(), await page.getByRole('combobox', { name: 'Project' }).boundingBox()];
    expect.soft(made!.y + made!.height, `New conversation above the project picker at ${size.width}×${size.height}`).toBeLessThanOrEqual(project!.y);
  }
  await page.setViewportSize(WIDE);
});

test('first chat: the reply writes a memory, its chip is shown, and the memory opens beside the chat', async () => {
  const { page } = app;
  fake.script(
    reply(text('Let me remember that.'), memoryCall({ command: 'create', path: '/memories/preferences.md', file_text: '# Preferences\n- Drinks tea, no sugar.\n- Lives in Lisbon.\n' })),
    reply(text('Noted: you drink **tea** without sugar, and you live in Lisbon.')),
  );
  await messageBox(page).fill('Please remember: I drink tea without sugar and I live in Lisbon.');
  await messageBox(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Noted');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const chip = page.getByRole('button', { name: 'created /memories/preferences.md' });
  await expect(chip).toBeVisible();
  // The new conversation is in the list, named after what was asked.
  await expect(nav(page).getByRole('button', { name: /remember/i }).first()).toBeVisible();
  await screens(page, '08-first-reply');

  const memory = page.getByRole('button', { name: 'Memory', exact: true });
  await memory.click();
  await expect(memory).toHaveAttribute('aria-expanded', 'true');
  const pane = page.getByRole('complementary', { name: /^Memory of / });
  await expect(pane).toBeVisible();
  await pane.getByRole('treeitem', { name: /preferences\.md/ }).click();
  await expect(pane.getByRole('textbox', { name: 'Editor' })).toContainText('Drinks tea');
  await screens(page, '09-memory-beside-chat');
  // The conversation's header stays one row when the pane takes room, and the pane's file actions share one row.
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    await expectSameRow(page.getByRole('meter', { name: 'Context window used' }), page.getByRole('button', { name: 'Export…' }), `context meter and Export… on one row at ${size.width}×${size.height}`);
    await expectSameRow(pane.getByRole('button', { name: 'Rename' }), pane.getByRole('button', { name: 'Delete' }), `the pane's Rename and Delete on one row at ${size.width}×${size.height}`);
  }
  await page.setViewportSize(WIDE);
  await memory.click();
  await expect(pane).toHaveCount(0);
});

test('Memories: the tab, a hand edit, search as you type, history and the review inbox', async () => {
  const { page } = app;
  const tab = page.getByRole('tab', { name: /^Memories/ });
  // What Claude wrote is waiting for review, and the tab says so.
  await expect(tab).toHaveAccessibleName(/to review/);
  await tab.click();
  await expect(page.getByRole('heading', { name: 'Memories', level: 1 })).toBeVisible();
  await screens(page, '10-memories');
  // A name in the tree has the list's whole width: the list's toggle ends the project picker's row instead of taking a
  // column of its own, so the name and its badges fit; the full path is the row's tooltip.
  const item = page.getByRole('treeitem', { name: 'preferences.md' });
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    await expectSameRow(page.getByRole('button', { name: 'Hide memory list' }), page.getByRole('combobox', { name: 'Memories of project' }), `the list's toggle on the project picker's row at ${size.width}×${size.height}`);
    await expectNotClipped(item.locator('.name'), `preferences.md in the tree at ${size.width}×${size.height}`);
  }
  await page.setViewportSize(WIDE);
  await expect(item).toHaveAttribute('title', /^\/memories\/preferences\.md/);
  // The column's toggle says what it does.
  const details = page.getByRole('button', { name: 'Show size and date' });
  await details.click();
  await expect(details).toHaveAttribute('aria-pressed', 'true');
  await expect(item.locator('.meta')).toBeVisible();
  await details.click();
  await expect(item.locator('.meta')).toHaveCount(0);

  const review = page.getByRole('button', { name: /^To review/ });
  await review.click();
  const inbox = page.getByRole('region', { name: 'To review' });
  await expect(inbox.getByRole('list', { name: 'Changes to review' })).toContainText('preferences.md');
  // "To review" is a pane's name, set like the other headings, not like a file path.
  const font = (l: Locator) => l.evaluate((el) => getComputedStyle(el).fontFamily);
  expect.soft(await font(inbox.getByRole('heading', { name: 'To review' }))).toBe(await font(page.getByRole('button', { name: 'New memory' })));
  // The change's heading says what happened; the path shows once, in the list above it (a screen reader hears it in the heading too).
  await expect(inbox.getByText('/memories/preferences.md', { exact: true }).and(page.locator(':not(.sr-only *)'))).toHaveCount(1);
  await expect(inbox.getByRole('heading', { level: 3 })).toHaveAccessibleName('/memories/preferences.md: New from Claude · version 1');
  await screens(page, '11-review-inbox');
  await inbox.getByRole('button', { name: 'Mark reviewed' }).first().click();
  await expect(tab).toHaveAccessibleName('Memories');

  await page.getByRole('treeitem', { name: 'preferences.md' }).click();
  const editor = page.getByRole('textbox', { name: 'Editor' });
  await expect(editor).toContainText('Lives in Lisbon');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type('\n- Works from home on Fridays.');
  await expect(page.getByLabel('Unsaved changes')).toBeVisible();
  await screens(page, '12-memory-edited', [WIDE]);
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/preferences.md')).toContain('Works from home on Fridays.');

  const search = page.getByRole('searchbox', { name: 'Search memories' });
  await search.pressSequentially('frid');
  const hits = page.getByRole('list', { name: 'Search results' });
  await expect(hits).toContainText('preferences.md');
  await screens(page, '13-memory-search');
  await search.fill('');

  await page.getByRole('treeitem', { name: 'preferences.md' }).click();
  await page.getByRole('button', { name: 'History' }).click();
  await expect(page.getByText(/version 2/i).first()).toBeVisible();
  await screens(page, '14-memory-history');
  // The History pane's title is no bigger than the file's own path heading above it.
  const size = (l: Locator) => l.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  expect.soft(await size(page.getByRole('heading', { name: 'History' })), 'History title size').toBeLessThanOrEqual(await size(page.getByRole('heading', { name: '/memories/preferences.md' })));
  await page.getByRole('button', { name: 'History' }).click();
});

test('Settings: every section is there and readable at both sizes', async () => {
  const { page } = app;
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  // The key's state in a word, then what it means.
  await expect(page.getByText('API key:').locator('strong')).toHaveText('saved');
  await expect(page.getByText('API key:')).toContainText('API key: saved, encrypted in the vault, and never shown again.');
  const sections = await page.getByRole('heading', { level: 2 }).allTextContents();
  expect(sections).toEqual(expect.arrayContaining(['Connection', 'Claude and memory', 'Security']));
  for (const button of await page.getByRole('main').getByRole('button').all()) {
    if (await button.isVisible()) await expectOneLine(button, `button "${await button.textContent()}"`);
  }
  // A button beside a field lines up with the field; the model box is as tall as the text fields.
  const [key, save] = [await page.getByLabel('Anthropic API key').boundingBox(), await page.getByRole('button', { name: 'Save key' }).boundingBox()];
  expect.soft(Math.abs(key!.y + key!.height - (save!.y + save!.height)), 'Save key lines up with the key field').toBeLessThanOrEqual(1);
  const [model, tokens] = [await page.getByRole('combobox', { name: 'Model' }).boundingBox(), await page.getByLabel('Max tokens per reply').boundingBox()];
  expect.soft(Math.abs(model!.height - tokens!.height), 'the model box is as tall as the fields').toBeLessThanOrEqual(1);
  await screens(page, '15-settings');
  // Every section, scrolled into view one by one, as a person reading down the page.
  for (const [i, name] of sections.entries()) {
    await page.getByRole('heading', { name, level: 2 }).scrollIntoViewIfNeeded();
    await shot(page, `walk-16-settings-${String(i + 1).padStart(2, '0')}-${name.toLowerCase().replace(/[^a-z]+/g, '-')}-light-1280x800`);
  }
});

test('lock and unlock, the shortcut sheet, the palette and a temporary chat', async () => {
  const { page } = app;
  await page.getByRole('tab', { name: /^Chat/ }).click();
  await lockButton(page).click();
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  await expect(page.getByLabel('Passphrase', { exact: true })).toBeFocused();
  await expectPrimary(page.getByRole('button', { name: 'Unlock', exact: true }));
  await screens(page, '17-unlock');
  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByLabel('Passphrase', { exact: true }).press('Enter');
  await expect(lockButton(page)).toBeVisible();

  await page.keyboard.press('ControlOrMeta+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  await screens(page, '18-shortcuts');
  // Each row's keys stay on one line; when a key works only somewhere, that is said beside what it does.
  for (const size of [WIDE, SMALL]) {
    await page.setViewportSize(size);
    for (const keys of await sheet.getByRole('row').filter({ has: page.getByRole('cell') }).all()) {
      await expectOneBand(keys.getByRole('cell').first(), `the keys "${await keys.getByRole('cell').first().textContent()}" at ${size.width}×${size.height}`);
    }
  }
  await page.setViewportSize(WIDE);
  await expect(sheet.getByRole('row', { name: /Show these keyboard shortcuts/ })).toContainText('(? outside a text box)');
  await page.keyboard.press('Escape');
  await expect(sheet).toHaveCount(0);

  await page.keyboard.press('ControlOrMeta+K');
  const palette = page.getByRole('dialog', { name: 'Go to' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.type('pref');
  await expect(palette.getByRole('option').first()).toContainText('preferences.md');
  await screens(page, '19-palette');
  await page.keyboard.press('Escape');
  await expect(palette).toHaveCount(0);

  await page.getByRole('button', { name: 'New temporary chat' }).click();
  fake.script(reply(text('This chat will be forgotten when you lock.')));
  await messageBox(page).fill('Just between us: what is 2 + 2?');
  await messageBox(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('forgotten');
  await expect(nav(page).getByRole('button', { name: /^Temporary chat / })).toBeVisible();
  await screens(page, '20-temporary-chat');
  await page.setViewportSize(SMALL);
  await expectSameRow(page.getByText('Temporary chat: not kept'), page.getByRole('button', { name: 'Export…' }), 'the temporary label and Export… on one row at 900×650');
  await page.setViewportSize(WIDE);
});

test('the conversation list with a few conversations: pin and archive', async () => {
  const { page } = app;
  const store = new Conversations(app.session.unlocked());
  const day = 86_400_000;
  for (const [title, ago] of [
    ['Trip to Porto in May', 0],
    ['Garden beds for next spring, and which tomatoes grow best in pots on a balcony', 1],
    ['Birthday present ideas', 3],
    ['Tax return questions', 12],
  ] as const) {
    const c = await store.create();
    await store.update(c.id, (x) => ({ ...x, title, updated: Date.now() - ago * day, transcript: [{ role: 'user', text: title, at: Date.now() - ago * day }] }));
  }
  // The list is read again on unlock, as after a restart.
  await lockButton(page).click();
  await page.getByLabel('Passphrase', { exact: true }).fill(PASSPHRASE);
  await page.getByLabel('Passphrase', { exact: true }).press('Enter');
  await expect(lockButton(page)).toBeVisible();
  await expect(nav(page).getByRole('button', { name: 'Birthday present ideas', exact: true })).toBeVisible();

  const rowOf = (title: string) => nav(page).getByRole('button', { name: title, exact: true });
  await rowOf('Birthday present ideas').hover();
  await nav(page).getByRole('button', { name: 'More actions for Birthday present ideas' }).click();
  await page.getByRole('menuitem', { name: 'Pin to top' }).click();
  await expect(nav(page).getByRole('list', { name: 'Pinned', exact: true }).getByRole('button', { name: 'Birthday present ideas', exact: true })).toBeVisible();

  await nav(page).getByRole('button', { name: 'More actions for Tax return questions' }).click();
  await page.getByRole('menuitem', { name: 'Archive' }).click();
  await expect(rowOf('Tax return questions')).toHaveCount(0);
  await expect(nav(page).getByRole('button', { name: /^Archived \(1\)/ })).toBeVisible();
  await screens(page, '21-conversation-list');
  // The open conversation is a tinted row, not an accent outline that reads as keyboard focus.
  const open = nav(page).locator('button[aria-current="true"]');
  await expect(open).toHaveCount(1);
  expect.soft(await open.evaluate((el) => getComputedStyle(el).borderTopColor), 'the open row has no outline').toBe('rgba(0, 0, 0, 0)');

  // Rows are one line each and share the list's left edge.
  const lefts = await nav(page).getByRole('list').getByRole('button', { name: /^(Trip|Garden|Birthday|Please)/ }).evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
  expect(new Set(lefts).size, 'conversation rows line up').toBe(1);
  await nav(page).getByRole('button', { name: /^Archived \(1\)/ }).click();
  await expect(page.getByRole('list', { name: 'Archived conversations' })).toContainText('Tax return questions');
  await screens(page, '22-archived', [WIDE]);
});
