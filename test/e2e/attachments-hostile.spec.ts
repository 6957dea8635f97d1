/**
 * Attachments against hostile input in the real page: a PNG with HTML and
 * script behind its header shows only as a picture (its blob typed as an
 * image, nothing run), and an API that refuses the request as too large gives
 * a clear message with the words and files back in the composer for a retry.
 */
import { expect, test, type Page } from '@playwright/test';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { apiError, attachmentBlocks, reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { png } from '../fixtures/attachments/make';
import { createVault, expectAccessible, freshApp, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;

test.beforeEach(async () => {
  fake = await startFakeAnthropic();
  app = await freshApp({ anthropicBaseURL: fake.baseURL });
  await createVault(app.page);
  await setApiKey(app.session.unlocked(), fake.apiKey);
});
test.afterEach(async () => {
  await app.cleanup();
  await fake.close();
});

const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const chips = (page: Page) => page.getByRole('list', { name: 'Attachments to send' });
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

async function paste(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await page.evaluate(
    ({ name, base64 }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: 'text/html' }));
      document.querySelector('textarea')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { name, base64: b64(bytes) },
  );
}

test('a PNG with HTML and script behind its header shows only as a picture, typed as an image, running nothing', async () => {
  const { page } = app;
  const polyglot = Buffer.concat([Buffer.from(png(8, 8)), Buffer.from('<html><body><script>window.__ran = 1; document.title = "owned"</script></body></html>')]);
  await message(page).focus();
  await paste(page, 'innocent.png', polyglot);
  await expect(chips(page)).toContainText('innocent.png');
  // The page's CSP lets no script fetch a blob: URL back, so the types of the blobs made are noted as they are made.
  await page.evaluate(() => {
    const made: string[] = [];
    (window as unknown as { __blobTypes: string[] }).__blobTypes = made;
    const create = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (o: Blob | MediaSource) => (made.push(o instanceof Blob ? o.type : 'media'), create(o));
  });
  fake.script(reply(text('A small square.')));
  await message(page).fill('What is this?');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('A small square.');
  expect(attachmentBlocks(fake.requests[0]!).map((b) => b.source.media_type)).toEqual(['image/png']);
  const img = page.getByRole('article', { name: 'You' }).last().getByRole('img', { name: 'innocent.png' });
  await expect(img).toHaveAttribute('src', /^blob:/);
  expect(await page.evaluate(() => (window as unknown as { __blobTypes: string[] }).__blobTypes)).toEqual(['image/png']);
  expect(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
  expect(await page.title()).not.toBe('owned');
});

test('a request the API refuses as too large gives a clear message and gives the words and files back for a retry', async () => {
  const { page } = app;
  await message(page).focus();
  await paste(page, 'photo.png', png(6, 6));
  await expect(chips(page)).toContainText('photo.png');
  fake.script(apiError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'));
  await message(page).fill('Look at this');
  await message(page).press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'still in the box' })).toHaveCount(1);
  await expect(message(page)).toHaveValue('Look at this');
  await expect(chips(page).getByRole('listitem')).toHaveCount(1);
  await expect(chips(page)).toContainText('photo.png');
  await expectAccessible(page, 'a refused request with attachments');

  // Sent again, the same file goes (main kept it).
  fake.script(reply(text('Now I see it.')));
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Now I see it.');
  expect(attachmentBlocks(fake.requests.at(-1)!).map((b) => b.source.media_type)).toEqual(['image/png']);
});
