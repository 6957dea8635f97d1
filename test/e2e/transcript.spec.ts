/**
 * The transcript at length and in order: a 1,000-reply conversation opens at
 * its end with only a window's worth of messages in the page, a reply being
 * streamed does not move a user who scrolled up, and a reply's text blocks and
 * memory chips appear in the order Claude produced them, kept apart.
 */
import { expect, test, type Page } from '@playwright/test';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { shot, eachWithFakeApi, idle, type FreshApp, newConversationButton } from './helpers';
import { seedConversation } from './seed';

let app: FreshApp;
let fake: FakeAnthropic;

eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const lastReply = (page: Page) => page.getByRole('article', { name: 'Claude' }).last();
async function send(page: Page, message: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}
/** Opens a conversation stored behind the window's back: a new conversation refreshes the list, then a click opens it. */
async function openSeeded(page: Page, title: string): Promise<void> {
  await newConversationButton(page).click();
  await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: title, exact: true }).click();
}
const scrollState = (page: Page) =>
  page.getByRole('region', { name: 'Conversation' }).evaluate((el) => ({ top: el.scrollTop, fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight }));
/** What the reader sees at the top of the transcript: the saved message there and how far it sits from the top edge. */
const inView = (page: Page) =>
  page.getByRole('region', { name: 'Conversation' }).evaluate((el) => {
    const box = el.getBoundingClientRect();
    const row = document.elementFromPoint(box.left + box.width / 2, box.top + 40)?.closest('.tx-row');
    return row ? { row: row.getAttribute('data-index'), offset: Math.round(row.getBoundingClientRect().top - box.top) } : undefined;
  });
/**
 * Waits until a scroll has been laid out and reads what is in view then. The rows that come into view are
 * measured in the frames after the scroll, and a row whose size differs from its estimate shifts the scroll
 * position by the difference (keeping what is in view in place), which brings more rows in: a cascade of one
 * step per frame, which on a busy machine lands well after the scroll itself. Each reading waits two frames
 * first, so two equal readings in a row mean nothing moved over frames in which any pending step would have.
 */
async function settledView(page: Page): Promise<{ top: number; fromBottom: number; view: { row: string | null; offset: number } }> {
  const region = page.getByRole('region', { name: 'Conversation' });
  const read = () =>
    region.evaluate(async (el) => {
      for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(r));
      const box = el.getBoundingClientRect();
      const row = document.elementFromPoint(box.left + box.width / 2, box.top + 40)?.closest('.tx-row');
      const view = row ? { row: row.getAttribute('data-index'), offset: Math.round(row.getBoundingClientRect().top - box.top) } : undefined;
      return { top: el.scrollTop, fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, view };
    });
  let last: string | undefined;
  let state: Awaited<ReturnType<typeof read>> | undefined;
  await expect
    .poll(async () => {
      state = await read();
      const key = state.view ? `${state.top}:${state.view.row}:${state.view.offset}` : undefined;
      const same = key !== undefined && key === last;
      last = key;
      return same;
    })
    .toBe(true);
  return { ...state!, view: state!.view! };
}

test('a 1,000-reply conversation opens at its last reply with only a window of messages in the page', async () => {
  const { page } = app;
  await seedConversation(app.session.unlocked(), 'Thousand replies', 1000);
  await openSeeded(page, 'Thousand replies');
  await expect(lastReply(page)).toContainText('That was reply 999.');
  await expect(lastReply(page)).toBeInViewport();
  const articles = await page.locator('article.msg').count();
  expect(articles).toBeGreaterThan(0);
  expect(articles).toBeLessThan(60);
  // The whole transcript is not one live region: only the status line speaks.
  await expect(page.locator('[aria-live]:has(article)')).toHaveCount(0);
});

test('a long conversation opens with its newest messages only; "Show earlier messages" brings the rest without moving the reader or announcing a reply', async () => {
  const { page } = app;
  await seedConversation(app.session.unlocked(), 'Long history', 300);
  await openSeeded(page, 'Long history');
  await expect(lastReply(page)).toContainText('That was reply 299.');
  const region = page.getByRole('region', { name: 'Conversation' });
  // The reader scrolls up and, before the scroll's event arrives, the window renders again (typing does it here;
  // on a busy machine any render can land there): the render must not pull the reader back to the end.
  await region.evaluate((el) => {
    el.scrollTop = 0;
    const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')!;
    const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
    setValue.call(box, 'typing');
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const earlier = page.getByRole('button', { name: 'Show 400 earlier messages' });
  await expect(earlier).toBeVisible();
  // The oldest message loaded is the first of the newest 200 entries: reply 200's question.
  await expect(page.locator('article.msg').first()).toContainText('Show me version 200.');
  await earlier.click();
  await expect(earlier).toHaveCount(0);
  // The reader stays at the message that was first in view, now with older ones above it.
  await expect(page.getByText('Show me version 200.')).toBeInViewport();
  await expect(page.getByRole('status').filter({ hasText: 'Claude replied' })).toHaveCount(0);
  await region.evaluate((el) => (el.scrollTop = 0));
  await expect(page.getByText('Show me version 0.', { exact: true })).toBeVisible();
  // A new reply keeps everything loaded.
  fake.script(reply(text('Reply three hundred.')));
  await send(page, 'One more.');
  // Sending goes to the end to show the reply, wherever the reader was; it is there once saved too, not only while streaming.
  await idle(page);
  await expect(lastReply(page)).toContainText('Reply three hundred.');
  await expect(lastReply(page)).toBeInViewport();
  await expect(page.getByRole('button', { name: /earlier messages/ })).toHaveCount(0);
});

/**
 * Opens a seeded conversation of `replies` exchanges at its end and sends a message whose reply streams 300 words
 * (20 ms a piece); returns the reply being streamed (its pace can be changed) once its 20th word is shown.
 */
async function streamLongReply(page: Page, title: string, replies: number) {
  await seedConversation(app.session.unlocked(), title, replies);
  await openSeeded(page, title);
  await expect(lastReply(page)).toContainText(`That was reply ${replies - 1}.`);
  const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
  const streamed = { ...reply(text(`Streaming now.\n\n${words}\n\nEnd of stream.`)), delayMs: 20, chunk: 6 };
  fake.script(streamed);
  await send(page, 'Stream something long.');
  const streaming = page.locator('article.streaming');
  await expect(streaming).toContainText('word20');
  return { streamed, streaming };
}

test('the transcript follows a streaming reply at the bottom, and stays where the user scrolled up to', async () => {
  const { page } = app;
  const { streamed, streaming } = await streamLongReply(page, 'Scroll test', 200);
  // Still at the bottom while text arrives.
  await expect(streaming).toContainText('word60');
  await expect.poll(async () => (await scrollState(page)).fromBottom).toBeLessThanOrEqual(48);

  // The user scrolls up in the frame that hands a streamed piece of text to the window, after that frame's scroll
  // events and before the text is drawn: the text's render comes before the scroll's event (as any render can on a
  // busy machine), and must not pull the user back to the end. Where the render landed is watched, so the test knows
  // it tried that order.
  // React may draw the text after the next frame's scroll event on a busy machine, so that order is tried again (from
  // the end) until it happened; the other order is the easy case and is not what this test is about.
  const region = page.getByRole('region', { name: 'Conversation' });
  let order = { renderedBeforeScrollEvent: false, fromBottomAtScrollEvent: 0 };
  for (let attempt = 0; attempt < 8 && !order.renderedBeforeScrollEvent; attempt++) {
    if (attempt) {
      await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await expect.poll(async () => (await scrollState(page)).fromBottom).toBeLessThanOrEqual(48);
    }
    order = await region.evaluate(
      (el) =>
        new Promise<{ renderedBeforeScrollEvent: boolean; fromBottomAtScrollEvent: number }>((resolve) => {
          let textQueued = false;
          const off = window.mnemo.on('chatEvent', (p) => void (p.event.type === 'text' && (textQueued = true)));
          // Asked for a frame ahead, each check runs before the callback the window asks for when text comes in between.
          const check = () => {
            if (!textQueued) return void requestAnimationFrame(check);
            off();
            let rendered = false;
            const streamed = new MutationObserver(() => (rendered = true));
            streamed.observe(el.querySelector('article.streaming')!, { childList: true, subtree: true, characterData: true });
            el.addEventListener(
              'scroll',
              () => {
                streamed.disconnect();
                resolve({ renderedBeforeScrollEvent: rendered, fromBottomAtScrollEvent: el.scrollHeight - el.scrollTop - el.clientHeight });
              },
              { once: true },
            );
            el.scrollBy(0, -3000);
          };
          requestAnimationFrame(check);
        }),
    );
  }
  expect(order.renderedBeforeScrollEvent, 'the streamed text was rendered between the scroll and its event').toBe(true);
  expect(order.fromBottomAtScrollEvent, 'that render left the user where they scrolled to, not at the end').toBeGreaterThan(1000);
  // The view stays where they put it while more text arrives: the same message at the same place.
  const before = await settledView(page);
  expect(before.fromBottom).toBeGreaterThan(1000);
  // Forty more words arrive after that reading, however long it took to settle.
  const wordsIn = () => streaming.evaluate((a) => a.textContent!.match(/\bword\d+/g)?.length ?? 0);
  const settledAt = await wordsIn();
  await expect.poll(wordsIn).toBeGreaterThanOrEqual(settledAt + 40);
  const after = await scrollState(page);
  expect(await inView(page)).toEqual(before.view);
  expect(Math.abs(after.top - before.top)).toBeLessThanOrEqual(2);
  expect(after.fromBottom).toBeGreaterThan(before.fromBottom);
  // The rest of the reply comes at once (the fake reads the pause before each event): what follows is about its end,
  // and a paced stream's remaining seconds stretch with a busy machine's timers.
  streamed.delayMs = 0;
  // The finished reply is announced once, without moving the view to it.
  await expect(page.getByRole('status').filter({ hasText: 'Claude replied.' })).toHaveText(/Streaming now\./);
  expect(await inView(page)).toEqual(before.view);
  expect(Math.abs((await scrollState(page)).top - before.top)).toBeLessThanOrEqual(2);
  await page.getByRole('region', { name: 'Conversation' }).evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(lastReply(page)).toContainText('End of stream.');
});

test('a scroll event the reader did not cause (the view where the window put it, a message below grown) does not stop following the reply', async () => {
  const { page } = app;
  const { streamed } = await streamLongReply(page, 'Follow test', 60);
  await expect.poll(async () => (await scrollState(page)).fromBottom).toBeLessThanOrEqual(48);
  // What a busy machine can do: something below grows (a message measured taller than its guess) and a scroll event
  // comes (the window's own size correction) before the render that pins the end again. The reader did nothing.
  const fromBottomAtEvent = await page.getByRole('region', { name: 'Conversation' }).evaluate((el) => {
    const grown = document.createElement('div');
    grown.style.height = '600px';
    el.querySelector('.tx-tail')!.append(grown);
    // Where the event finds the view: read before it is sent (its handler may put the view back at the end at once,
    // which is what the test wants; read after, that looked like a view that never left the end: a CI failure).
    const away = el.scrollHeight - el.scrollTop - el.clientHeight;
    el.dispatchEvent(new Event('scroll'));
    grown.remove();
    return away;
  });
  expect(fromBottomAtEvent, 'the event found the view away from the end').toBeGreaterThan(500);
  streamed.delayMs = 0;
  await expect(lastReply(page)).toContainText('End of stream.');
  await expect.poll(async () => (await scrollState(page)).fromBottom, { message: 'still at the end' }).toBeLessThanOrEqual(48);
  await expect(lastReply(page)).toBeInViewport();
});

test("a reply's text blocks and memory chips keep Claude's order and stay separate blocks, while streaming and once saved", async () => {
  const { page } = app;
  const tail = Array.from({ length: 120 }, (_, i) => `tail${i}`).join(' ');
  fake.script(
    reply(text('Let me check my memory first.'), memoryCall({ command: 'view', path: '/memories' })),
    { ...reply(text('Got it.'), text('A second block.'), text(`Now a slow part: ${tail} done.`)), delayMs: 15 },
  );
  await send(page, 'What do you remember?');
  const order = (article: ReturnType<typeof lastReply>) =>
    article.evaluate((el) => Array.from(el.querySelectorAll('.markdown p, .chip-head'), (n) => n.textContent!.trim()).filter((t) => !t.startsWith('Now a slow part')));
  const expected = ['Let me check my memory first.', 'viewed /memories', 'Got it.', 'A second block.'];

  const streaming = page.locator('article.streaming');
  await expect(streaming).toContainText('tail10');
  expect(await order(streaming)).toEqual(expected);

  await expect(page.locator('article.streaming')).toHaveCount(0);
  await expect(lastReply(page)).toContainText('tail119 done.');
  expect(await order(lastReply(page))).toEqual(expected);
});

test('tables get rules and code blocks a language label and a copy button', async () => {
  const { page } = app;
  fake.script(reply(text('| Name | Drink |\n| --- | --- |\n| Ann | tea |\n| Bo | coffee |\n\n```python\nprint("hi")\n```\n\n```\nplain text\n```')));
  await send(page, 'Table and code, please.');
  const last = lastReply(page);
  await expect(last.getByRole('table')).toBeVisible();
  // Once the reply is saved (the streamed copy gone).
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await expect(page.locator('article.streaming')).toHaveCount(0);
  const border = await last.locator('td').first().evaluate((td) => getComputedStyle(td).getPropertyValue('border-top-style'));
  expect(border).toBe('solid');
  await expect(last.locator('pre .code-lang')).toHaveText(['python', 'text']);
  await expect(last.getByRole('button', { name: 'Copy code' })).toHaveCount(2);
  await shot(page, '21-chat-table-and-code');
});
