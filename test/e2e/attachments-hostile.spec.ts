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
import { Conversations } from '../../electron/core/chat/conversations';
import { newAttachmentId, referenceBlock } from '../../electron/core/chat/attachments-send';
import type { AttachmentRef, TranscriptEntry } from '../../electron/shared/chat';
import { expectAccessible, type FreshApp, readyApp, newConversationButton } from './helpers';

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

test('opening a conversation with 100 images reads only the thumbnails in view, and the rest as they are scrolled to', async () => {
  test.slow();
  const { page } = app;
  const vault = app.session.unlocked();
  const store = new Conversations(vault);
  const c = await store.create();
  const transcript: TranscriptEntry[] = [];
  const messages: Array<{ role: 'user' | 'assistant'; content: unknown }> = [];
  for (let turn = 0; turn < 50; turn++) {
    const refs: AttachmentRef[] = [];
    for (let k = 0; k < 2; k++) {
      const bytes = png(40, 30, [turn * 5, k * 100, 90]);
      const ref = { id: newAttachmentId(), name: `t${turn}-${k}.png`, mediaType: 'image/png' as const, bytes: bytes.length };
      await store.putAttachment(c.id, ref.id, bytes);
      refs.push(ref);
    }
    transcript.push({ role: 'user', text: `Pictures ${turn}`, at: turn, attachments: refs }, { role: 'assistant', text: `Seen ${turn}.`, at: turn, tools: [] });
    messages.push({ role: 'user', content: [...refs.map(referenceBlock), { type: 'text', text: `Pictures ${turn}` }] }, { role: 'assistant', content: [{ type: 'text', text: `Seen ${turn}.` }] });
  }
  await store.update(c.id, (conv) => ({ ...conv, title: 'Album', transcript, messages: messages as typeof conv.messages, turnStarts: transcript.filter((_, i) => i % 2 === 0).map((_, i) => i * 2) }));
  await newConversationButton(page).click();
  await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Album', exact: true }).click();
  const lastImage = page.getByRole('img', { name: 't49-1.png' });
  await expect(lastImage).toBeVisible();
  await expect(lastImage).toHaveAttribute('src', /^blob:/);
  const gets = () => app.ipc.filter((r) => r.direction === 'call' && r.channel === 'chat:attachment-get').length;
  // Only what is on screen (and just beyond it) is read, not every image the page holds.
  expect(gets()).toBeLessThan(20);
  const before = gets();
  await page.getByRole('region', { name: 'Conversation' }).evaluate((el) => el.scrollBy(0, -el.clientHeight * 3));
  await expect.poll(gets).toBeGreaterThan(before);
});

