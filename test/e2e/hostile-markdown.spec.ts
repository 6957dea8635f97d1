/**
 * Hostile content stays inert in real Chromium: every payload of the corpus
 * (test/fixtures/xss-payloads.ts) arrives as Claude's reply from
 * test/fake-anthropic, streams through the real Markdown component and is
 * saved to the transcript, under the app's real CSP with Trusted Types.
 */
import { expect, test, type Page, type Request } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { XSS_PAYLOADS } from '../fixtures/xss-payloads';
import { DEEP, randomSeed, sample } from '../deep';
import { openMemories, readyApp, typeInEditor, type FreshApp } from './helpers';

type Fresh = FreshApp;
let app: Fresh;
let fake: FakeAnthropic;
let requests: string[];
let dialogs: string[];

/** Records every CSP (and so Trusted Types) violation the page reports. */
async function watchViolations(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`));
  });
}
const violations = (page: Page) => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);

test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  app = await readyApp({ anthropicBaseURL: fake.baseURL });
  requests = [];
  dialogs = [];
  app.page.on('request', (r: Request) => requests.push(r.url()));
  app.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await watchViolations(app.page);
  await setApiKey(app.session.unlocked(), fake.apiKey);
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
});

/** What is wrong inside rendered Markdown: handlers, styles, ids, names, classes we did not set, non-http(s) links. */
async function markdownProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll('.markdown *'))) {
      const tag = el.tagName.toLowerCase();
      for (const { name, value } of Array.from(el.attributes)) {
        const ours =
          (name === 'class' && tag === 'code' && /^hljs( language-[\w+#-]+)?$/.test(value)) ||
          (name === 'class' && tag === 'span' && el.closest('pre > code.hljs') !== null && /^hljs-/.test(value)) ||
          (name === 'class' && tag === 'button' && value === 'copy' && el.parentElement?.matches('pre > div.code-bar')) ||
          (name === 'class' && tag === 'span' && value === 'code-lang' && el.parentElement?.matches('pre > div.code-bar')) ||
          (name === 'class' && tag === 'div' && value === 'code-bar' && el.parentElement?.tagName === 'PRE') ||
          (name === 'class' && tag === 'div' && value === 'md-block' && el.parentElement?.classList.contains('markdown')) ||
          (name === 'class' && tag === 'div' && value === 'table-wrap' && el.firstElementChild?.tagName === 'TABLE') ||
          ((name === 'type' || name === 'aria-label') && tag === 'button' && value !== '' && el.className === 'copy') ||
          (name === 'is' && value === '');
        if (ours) continue;
        if (/^on/i.test(name) || ['style', 'class', 'id', 'name', 'src', 'srcset', 'poster', 'background', 'action', 'formaction', 'role'].includes(name) || /^(data|aria)-/.test(name)) {
          found.push(`${tag}[${name}=${value.slice(0, 40)}]`);
        }
        if (name === 'href' && !/^(https?:|mailto:)/i.test(value)) found.push(`${tag}[href=${value.slice(0, 40)}]`);
      }
      if (!['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'hr', 'br', 'span', 'button', 'div'].includes(tag)) found.push(`<${tag}>`);
    }
    return found;
  });
}

/**
 * Each payload is a full turn through the SDK and the fake API (all 148: about 40 s alone, more on a busy
 * machine): `npm test` sends a sample of 24 (every payload still goes through the same sanitizer in
 * test/unit/renderer/sanitize.test.ts), `npm run test:deep` sends them all. In two tests of half each, so
 * each stays far from the time limit.
 */
const SENT = sample(XSS_PAYLOADS, 24, randomSeed('hostile-markdown: payloads sent'));
const HALF = Math.ceil(SENT.length / 2);

for (const [part, PAYLOADS] of [SENT.slice(0, HALF), SENT.slice(HALF)].entries())
test(`${SENT.length === XSS_PAYLOADS.length ? 'all' : `${SENT.length} of the`} ${XSS_PAYLOADS.length} hostile payloads (part ${part + 1} of 2: ${PAYLOADS.length}), sent as Claude's replies, run no script, load nothing and keep no handler, style, id or foreign class`, async () => {
  if (DEEP) test.setTimeout(5 * 60_000);
  const { page } = app;
  const origin = new URL(page.url()).origin;
  fake.script(...PAYLOADS.map((p) => reply(text(`${p.name}:\n\n${p.markdown}`))));
  const replies = page.getByRole('article', { name: 'Claude' });
  // The transcript keeps only the messages near the view in the page, so each reply is checked as it arrives.
  const problems: string[] = [];
  for (const [i, p] of PAYLOADS.entries()) {
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
    await page.getByRole('textbox', { name: 'Message' }).fill(`Payload ${i + 1}`);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    // Saved first: two payloads can share a first word, so the last reply on screen may still be the one before.
    await expect.poll(async () => (await new Conversations(app.session.unlocked()).list())[0]?.messageCount, { message: p.name }).toBe(2 * (i + 1));
    await expect(replies.last(), p.name).toContainText(p.name.split(' ')[0]!);
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
    await expect(page.locator('article.streaming')).toHaveCount(0);
    problems.push(...(await markdownProblems(page)));
  }
  const [saved] = await new Conversations(app.session.unlocked()).list();
  expect(saved?.messageCount).toBe(2 * PAYLOADS.length);
  expect(problems).toEqual([]);

  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(await markdownProblems(page)).toEqual([]);
  expect(await page.locator('.markdown img, .markdown video, .markdown audio, .markdown iframe, .markdown svg, .markdown math, .markdown form, .markdown input, .markdown style').count()).toBe(0);
  // Nothing borrowed our look: the only approval groups and alerts are the app's own (none here).
  await expect(page.locator('.approval')).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(requests.filter((u) => !u.startsWith(origin + '/'))).toEqual([]);
  // CSP reports here are expected and harmless: DOMPurify parses the hostile HTML in an inert document, and
  // Chromium reports (and blocks) each inline handler and script text it meets there. None is ours.
  expect((await violations(page)).filter((v) => !/^(script-src-attr inline|require-trusted-types-for trusted-types-sink (HTML|SVG)ScriptElement text)/.test(v))).toEqual([]);
});

test('Trusted Types is enforced: a plain string cannot reach innerHTML, and code blocks still render with our highlighting', async () => {
  const { page } = app;
  const refused = await page.evaluate(() => {
    try {
      document.createElement('div').innerHTML = '<b>x</b>';
      return false;
    } catch (e) {
      return e instanceof TypeError;
    }
  });
  expect(refused).toBe(true);
  await watchViolations(page);
  fake.script(reply(text('Here:\n\n```ts\nconst answer = 42;\n```\n\nSee [the docs](https://docs.anthropic.com/).')));
  await page.getByRole('textbox', { name: 'Message' }).fill('Show code.');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  const last = page.getByRole('article', { name: 'Claude' }).last();
  await expect(last.locator('code.hljs.language-ts .hljs-keyword')).toHaveText('const');
  await expect(last.getByRole('button', { name: 'Copy code' })).toBeVisible();
  const before = page.url();
  await last.getByRole('link', { name: 'the docs' }).click();
  // The click is handled by our code and never navigates the window.
  expect(page.url()).toBe(before);
  await expect(page.getByRole('button', { name: 'Lock', exact: true })).toBeVisible();

  // The CodeMirror editor works under Trusted Types too.
  await openMemories(page);
  await page.getByRole('button', { name: 'New memory' }).click();
  await page.getByLabel('Path of the new memory').fill('/memories/tt.md');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await typeInEditor(page, '# Heading\n<img src=x onerror=window.__pwned=1> stays text');
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
  expect(await app.session.unlocked().memory.readFile('/memories/tt.md')).toBe('# Heading\n<img src=x onerror=window.__pwned=1> stays text');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(await violations(page)).toEqual([]);
});
