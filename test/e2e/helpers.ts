/** Steps the specs share, done as a person would: labels and roles, keyboard and clicks. */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server';
import { DEEP, randomSeed } from '../deep';
import { launchApp, type App, type LaunchOptions } from './harness';

export const PASSPHRASE = 'amber-kettle-orbit-sonnet-42';
const SCREENS = path.resolve(import.meta.dirname, '../../test-results/screens');

/** A fresh user-data directory and the app on it; `cleanup` closes both. */
export async function freshApp(opts: Partial<LaunchOptions> = {}): Promise<App & { userDataDir: string; cleanup(): Promise<void> }> {
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-e2e-'));
  const app = await launchApp({ userDataDir, ...opts });
  return {
    ...app,
    userDataDir,
    cleanup: async () => {
      await app.close();
      await fs.rm(userDataDir, { recursive: true, force: true });
    },
  };
}

export type FreshApp = Awaited<ReturnType<typeof freshApp>>;

/**
 * A fresh app on a vault made through main's create handler before the page loaded (PASSPHRASE, or
 * `createdWith`), arrived unlocked in the chat. For specs not about first run: the first-run screens
 * are walked, and checked with axe, by their own specs.
 */
export async function readyApp(opts: Partial<LaunchOptions> = {}): Promise<FreshApp> {
  const app = await freshApp({ createdWith: PASSPHRASE, ...opts });
  // The Lock button by place, not name: `opts.locale` may set another language.
  await expect(app.page.locator('header.topbar button.lock')).toBeVisible();
  return app;
}

/**
 * Gives each test of the calling spec a fresh app talking to a fresh
 * test/fake-anthropic (handed to `set`), both closed after the test. With
 * `ready`, the vault is made and the fake's key stored, so the chat is usable.
 */
export function eachWithFakeApi(set: (app: FreshApp, fake: FakeAnthropic) => void, opts: { ready?: boolean } = {}): void {
  let current: { app: FreshApp; fake: FakeAnthropic } | undefined;
  test.beforeEach(async () => {
    const fake = await startFakeAnthropic();
    const app = opts.ready ? await readyApp({ anthropicBaseURL: fake.baseURL }) : await freshApp({ anthropicBaseURL: fake.baseURL });
    current = { app, fake };
    set(app, fake);
    if (opts.ready) await setApiKey(app.session.unlocked(), fake.apiKey);
  });
  test.afterEach(async () => {
    await current?.app.cleanup();
    await current?.fake.close();
    current = undefined;
  });
}

/**
 * Gives each test of the calling spec a fresh app (handed to `set`) with a new
 * vault and the memory window open, closed after the test.
 */
export function eachWithMemoriesOpen(set: (app: FreshApp) => void): void {
  let current: FreshApp | undefined;
  test.beforeEach(async () => {
    current = await readyApp();
    set(current);
    await openMemories(current.page);
  });
  test.afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
}

/**
 * Photos for a person's review are taken under `npm run test:deep` or with
 * MNEMO_SCREENS=1; `npm test` asserts the same screens without spending its
 * time on pictures nobody looks at in CI.
 */
export const PHOTOS = DEEP || process.env.MNEMO_SCREENS === '1';

/** Saves a screenshot for review under test-results/screens/ (when PHOTOS). */
export async function shot(page: Page, name: string): Promise<void> {
  if (!PHOTOS) return;
  await fs.mkdir(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
}

/**
 * Runs axe-core on the screen as it is, in light and in dark, and fails on any
 * serious or critical violation (naming the rule and the elements); checks
 * for one main landmark and one h1. The page's own colour scheme is put back
 * afterwards. Soft assertions: one run reports every screen that fails.
 * Outside the accessibility spec (`both`), `npm test` takes one scheme per
 * screen and run (schemesFor).
 */
export async function expectAccessible(page: Page, screen = 'this screen', opts: { both?: boolean } = {}): Promise<void> {
  // What axe rates only "moderate", the issue asks for on every screen: one main landmark and one level-one heading.
  await expect.soft(page.getByRole('main'), `one main landmark on ${screen}`).toHaveCount(1);
  await expect.soft(page.getByRole('heading', { level: 1 }), `one level-one heading on ${screen}`).toHaveCount(1);
  const wasDark = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
  // A screen exactly like one already checked in this process (same DOM, form values, focus and
  // size; the same build's CSS) gets the same axe answer: the fresh app after creating a vault is
  // checked in most specs, so it is analysed once per worker, not once per test. Kept per scheme: a screen
  // another spec checked in one scheme is still checked in the other where both are asked for.
  const fingerprint = await screenFingerprint(page);
  const schemes = (opts.both ? (['light', 'dark'] as const) : schemesFor(screen)).filter((c) => !passedScreens.has(`${c}:${fingerprint}`));
  if (!schemes.length) return;
  const failuresBefore = test.info().errors.length;
  for (const colorScheme of schemes) {
    await page.emulateMedia({ colorScheme });
    const { violations } = await new AxeBuilder({ page }).analyze();
    const bad = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect.soft(bad, `axe on ${screen}, ${colorScheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: wasDark ? 'dark' : 'light' });
  if (test.info().errors.length === failuresBefore) for (const c of schemes) passedScreens.add(`${c}:${fingerprint}`);
}

/** `scheme:fingerprint` of the screens that passed in this process. */
const passedScreens = new Set<string>();

/**
 * Both colour schemes under test:deep. Under `npm test` one per screen (an analysis takes 1–2 s here), light or
 * dark by the screen's name and a printed per-process seed, so across runs each screen is checked in both.
 */
function schemesFor(screen: string): ReadonlyArray<'light' | 'dark'> {
  if (DEEP) return ['light', 'dark'];
  axeSeed ??= randomSeed('axe: colour scheme per screen');
  return [(createHash('sha256').update(`${axeSeed}:${screen}`).digest()[0]! & 1) === 0 ? 'light' : 'dark'];
}
let axeSeed: number | undefined;

/** The page as axe sees it: markup, form values, the focused element and the viewport, hashed. */
async function screenFingerprint(page: Page): Promise<string> {
  const state = await page.evaluate(() => {
    const values = [...document.querySelectorAll('input, textarea, select')].map((e) => `${(e as HTMLInputElement).value}|${(e as HTMLInputElement).checked}`);
    const focused = document.activeElement;
    const focusPath: string[] = [];
    for (let e: Element | null = focused; e; e = e.parentElement) focusPath.push(`${e.tagName}:${[...(e.parentElement?.children ?? [])].indexOf(e)}`);
    return JSON.stringify([document.documentElement.outerHTML, values, focusPath, innerWidth, innerHeight]);
  });
  return createHash('sha256').update(state).digest('hex');
}

/** First run: choose the passphrase, keep the recovery key, arrive in the app. Returns the recovery key. */
export async function createVault(page: Page, passphrase = PASSPHRASE, screenshots = false): Promise<string> {
  await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  await page.getByLabel('Confirm passphrase').fill(passphrase);
  if (screenshots) await shot(page, '01-create-vault');
  await page.getByRole('button', { name: 'Create vault' }).click();
  const keyBox = page.getByLabel('Recovery key');
  await expect(keyBox).toBeVisible();
  const recoveryKey = (await keyBox.textContent())!.trim();
  if (screenshots) await shot(page, '02-recovery-key');
  await page.getByLabel(/last group/).fill(recoveryKey.split('-').at(-1)!);
  await page.getByRole('button', { name: /saved my recovery key/i }).click();
  await passApiKeyStep(page);
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();
  await expectAccessible(page, 'the app after creating the vault');
  return recoveryKey;
}

/** First run asks for the API key after the recovery key; specs that set the key through core pass that step by. */
export async function passApiKeyStep(page: Page): Promise<void> {
  const step = page.getByRole('heading', { name: 'Connect to Claude' });
  await expect(page.getByRole('button', { name: 'Lock', exact: true }).or(step)).toBeVisible();
  if (await step.isVisible()) await page.getByRole('button', { name: /^(Continue|Skip for now)/ }).click();
}

export async function lock(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Lock', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  await expectAccessible(page, 'the unlock screen');
}

export async function unlock(page: Page, passphrase = PASSPHRASE): Promise<void> {
  await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  await page.getByLabel('Passphrase', { exact: true }).press('Enter');
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();
}

export async function openMemories(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Memories' }).click();
  await expect(page.getByRole('button', { name: 'New memory' })).toBeVisible();
  await expectAccessible(page, 'the memories section');
}

/** Which way each of `lines` (editor lines) reads on screen: a right-to-left paragraph (unicode-bidi: plaintext) starts at the right edge. */
export function lineDirections(lines: Locator): Promise<Array<'rtl' | 'ltr'>> {
  return lines.evaluateAll((ls) =>
    ls.map((l) => {
      const r = document.createRange();
      r.selectNodeContents(l);
      const text = r.getBoundingClientRect();
      const box = l.getBoundingClientRect();
      return Math.abs(box.right - text.right) < Math.abs(text.left - box.left) ? 'rtl' : 'ltr';
    }),
  );
}

/** The editor's whole text replaced by typing, as a user would (select all, type). */
export async function typeInEditor(page: Page, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Editor' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
}

/** Sends `message` from the Chat tab and waits until the turn is over (Send is back). */
export async function sendFromChatTab(page: Page, message: string): Promise<void> {
  await page.getByRole('tab', { name: /^Chat/ }).click();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
}

/** The chat screen's message box. */
/**
 * The New conversation button above the list. Not by name alone: a conversation still untitled is listed as
 * "New conversation" too (and its menu button names it), so that would match up to three buttons.
 */
export const newConversationButton = (page: Page) => page.getByRole('button', { name: 'New conversation', exact: true }).and(page.locator('.new-conversation'));

export const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' });

/** Sends `text` as a person would: waits until the previous reply has finished (Send is back in place of Stop). */
export async function send(page: Page, text: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await messageBox(page).fill(text);
  await messageBox(page).press('Enter');
}

/**
 * Waits until no turn runs: Send is back in place of Stop, and available (a message just sent shows Send as not
 * available until main has started its turn, so a check right after pressing Enter does not pass too early).
 */
export async function idle(page: Page): Promise<void> {
  const sendButton = page.getByRole('button', { name: 'Send' });
  await expect(sendButton).toBeVisible();
  await expect(sendButton).not.toHaveAttribute('aria-disabled', 'true');
  await expect(sendButton).toBeVisible();
}

/** Claude's latest reply in the transcript. */
export const lastReply = (page: Page) => page.getByRole('article', { name: 'Claude' }).last();
