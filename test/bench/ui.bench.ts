/**
 * `npm run bench:ui`: the chat window's cost as conversations grow, through the
 * Chromium harness (real renderer, real handlers, real SDK) and
 * test/fake-anthropic pacing its stream. For 1, 50, 200 and 1,000 earlier
 * replies (each holding a 60-line code block) it measures:
 *   - paint latency: the fake API writing a text delta → that text present in
 *     the page's DOM (a MutationObserver timestamp; same machine clock), median and p95;
 *   - open: clicking the conversation → its last reply in the DOM, median of 3;
 * and once, the time for 40 full exchanges in a new conversation; and the
 * 1,000-reply conversation again with 9 of its recent messages edited (each
 * edit a branch: the old rest of the conversation is kept as a version), as
 * the window opens it (its versions read with it). Ratios are
 * against the 1-reply figures of the same run. Targets (issue 11): p95 ≤ 50 ms
 * at 200 replies; p95 growth 1 → 1,000 ≤ 2×; open 1,000 replies ≤ 300 ms.
 * Needs `npm run build` first (the script does it). The last line is JSON.
 * Run by Playwright's runner (test/bench/ui.config.ts), whose transform leaves
 * the functions the harness sends into the page as they are written.
 */
import { test } from '@playwright/test';
import type { Page } from 'playwright-core';
import { Conversations } from '../../electron/core/chat/conversations';
import { setApiKey } from '../../electron/core/chat/settings-store';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../fake-anthropic/server';
import { createVault, freshApp } from '../e2e/helpers';
import { CODE_60, seedConversation, seededReply } from '../e2e/seed';

const SIZES = (process.env.MNEMO_BENCH_UI_SIZES ?? '1,50,200,1000').split(',').map(Number);
/** Tokens per measured reply, and the pause between the API's events. */
const TOKENS = Number(process.env.MNEMO_BENCH_UI_TOKENS ?? 150);
const DELAY_MS = 15;
const EXCHANGES = Number(process.env.MNEMO_BENCH_UI_EXCHANGES ?? 40);
/** The size measured again with EDITS of its messages edited (0: not measured). */
const EDITED = Number(process.env.MNEMO_BENCH_UI_EDITED ?? 1000);
const EDITS = 9;

type Fresh = Awaited<ReturnType<typeof freshApp>>;
const now = () => performance.timeOrigin + performance.now();
const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
}

async function start(): Promise<{ app: Fresh; fake: FakeAnthropic }> {
  const fake = await startFakeAnthropic();
  const app = await freshApp({ anthropicBaseURL: fake.baseURL });
  await createVault(app.page);
  await setApiKey(app.session.unlocked(), fake.apiKey);
  return { app, fake };
}

/** Clicks a conversation in the sidebar and returns the ms until `marker` is in its last reply. */
async function openTimed(page: Page, title: string, marker: string): Promise<number> {
  return page.evaluate(
    ([title, marker]) =>
      new Promise<number>((resolve) => {
        const button = Array.from(document.querySelectorAll<HTMLButtonElement>('nav[aria-label="Conversations"] button.conv')).find((b) => b.textContent?.trim() === title);
        if (!button) throw new Error(`no conversation titled ${title}`);
        const t0 = performance.now();
        const done = () => Array.from(document.querySelectorAll('article.msg.assistant')).at(-1)?.textContent?.includes(marker);
        const observer = new MutationObserver(() => {
          if (!done()) return;
          observer.disconnect();
          resolve(performance.now() - t0);
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        button.click();
      }),
    [title, marker] as const,
  );
}

/** Streams one reply of TOKENS tokens and returns each token's latency (API write → in the DOM), in ms. */
async function paintLatencies(app: Fresh, fake: FakeAnthropic): Promise<number[]> {
  const { page } = app;
  await page.evaluate(() => {
    const w = window as unknown as { __seen: Record<string, number> };
    w.__seen = {};
    new MutationObserver(() => {
      const t = performance.timeOrigin + performance.now();
      const live = document.querySelector('article.streaming')?.textContent ?? '';
      for (const m of live.matchAll(/t(\d{4})x/g)) w.__seen[m[1]!] ??= t;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const sent: Record<string, number> = {};
  const words = Array.from({ length: TOKENS }, (_, i) => `t${String(i).padStart(4, '0')}x `).join('');
  fake.script({
    ...reply(text(words)),
    delayMs: DELAY_MS,
    chunk: 7,
    onEvent: (name, data) => {
      const delta = (data as { delta?: { type?: string; text?: string } }).delta;
      if (name !== 'content_block_delta' || delta?.type !== 'text_delta') return;
      for (const m of (delta.text ?? '').matchAll(/t(\d{4})x/g)) sent[m[1]!] ??= now();
    },
  });
  await sendAndWait(page, 'Stream the benchmark reply.');
  const seen = await page.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
  return Object.keys(sent)
    .filter((k) => seen[k] !== undefined)
    .map((k) => seen[k]! - sent[k]!);
}

async function sendAndWait(page: Page, message: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await page.getByRole('button', { name: 'Send' }).waitFor();
  await box.fill(message);
  await box.press('Enter');
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 120_000 });
  await page.locator('article.streaming').waitFor({ state: 'detached' });
}

interface SizeFigures {
  replies: number;
  /** Messages edited (branches), each keeping the conversation's old rest as a version. */
  edits: number;
  medianMs: number;
  p95Ms: number;
  samples: number;
  openMs: number;
  /** The conversation fetch alone (chatGet round trip from the window), which opening includes. */
  fetchMs: number;
}

/**
 * Edits `edits` recent messages of conversation `id` as the window does: each is a branch at that message
 * (what follows set aside as version 1), then the edited message and the same replies again as version 2.
 */
async function editMessages(vault: ReturnType<Fresh['session']['unlocked']>, id: string, replies: number, edits: number, tag: string): Promise<void> {
  const conversations = new Conversations(vault);
  const exchange = (i: number, user: string) => ({ user, reply: seededReply(i, tag) });
  // The conversation was seeded with its API history (seedConversation's apiHistory): a branch cuts it with the transcript.
  for (let e = 1; e <= edits; e++) {
    // Recent messages, as people edit: the 2nd, 4th, … 18th from the end (an edit far back that then grows the
    // conversation to its old length again costs more to open, as every record the log holds is read: see README).
    const at = Math.max(0, replies - 2 * e);
    await conversations.branch(id, at, 'edit');
    await conversations.update(id, (c) => {
      const t0 = Date.now();
      const again = Array.from({ length: replies - at }, (_, j) => exchange(at + j, `Show me version ${at + j}${j === 0 ? `, edited (${e})` : ''}.`));
      return {
        ...c,
        transcript: [...c.transcript, ...again.flatMap((x, j) => [
          { role: 'user' as const, text: x.user, at: t0 + 2 * j },
          { role: 'assistant' as const, text: x.reply, at: t0 + 2 * j + 1, tools: [] },
        ])],
        messages: [...c.messages, ...again.flatMap((x) => [{ role: 'user' as const, content: x.user }, { role: 'assistant' as const, content: [{ type: 'text' as const, text: x.reply }] }])],
        turnStarts: [...(c.turnStarts ?? []), ...again.map((_, j) => c.messages.length + 2 * j)],
      };
    });
  }
}

async function measureSize(replies: number, edits = 0): Promise<SizeFigures> {
  const { app, fake } = await start();
  try {
    const vault = app.session.unlocked();
    // Both with the API history beside the transcript, as real chats have, so plain and edited sizes compare alike.
    await seedConversation(vault, 'Other', 1, 'other', { apiHistory: true });
    const title = `Seeded ${replies}${edits ? ` edited ${edits}` : ''}`;
    const seeded = await seedConversation(vault, title, replies, title, { apiHistory: true });
    if (edits) await editMessages(vault, seeded, replies, edits, title);
    // A new conversation refreshes the sidebar, which now lists both.
    await app.page.getByRole('button', { name: 'New conversation' }).click();
    await app.page.getByRole('button', { name: title, exact: true }).waitFor();
    const opens: number[] = [];
    for (let i = 0; i < 3; i++) {
      await openTimed(app.page, 'Other', 'That was reply 0. other');
      opens.push(await openTimed(app.page, title, `That was reply ${replies - 1}. ${title}`));
    }
    // The part of opening that is fetching: the same chatGet call alone, for the newest 200 entries as the window asks (main reads and decrypts, then the transfer).
    const id = (await new Conversations(vault).list()).find((c) => c.title === title)!.id;
    const fetches: number[] = [];
    for (let i = 0; i < 3; i++)
      fetches.push(
        await app.page.evaluate((id) => {
          const t0 = performance.now();
          return window.mnemo.chatGet({ id, tail: 200 }).then(() => performance.now() - t0);
        }, id),
      );
    const latencies = await paintLatencies(app, fake);
    if (process.env.MNEMO_BENCH_UI_DEBUG) console.log(latencies.map((l) => l.toFixed(0)).join(' '));
    return { replies, edits, medianMs: median(latencies), p95Ms: quantile(latencies, 0.95), samples: latencies.length, openMs: median(opens), fetchMs: median(fetches) };
  } finally {
    await app.cleanup();
    await fake.close();
  }
}

/** EXCHANGES full turns in a new conversation, each reply holding a 60-line code block, streamed as fast as the app takes it. */
async function measureExchanges(): Promise<number> {
  const { app, fake } = await start();
  try {
    for (let i = 0; i < EXCHANGES; i++) fake.script({ ...reply(text(`Exchange ${i}:\n\n\`\`\`ts\n${CODE_60}\n\`\`\`\n\nDone ${i}.`)), chunk: 12 });
    const t0 = now();
    for (let i = 0; i < EXCHANGES; i++) {
      const t = now();
      await sendAndWait(app.page, `Exchange ${i}, please.`);
      if (process.env.MNEMO_BENCH_UI_DEBUG) console.log(`exchange ${i}: ${(now() - t).toFixed(0)} ms`);
    }
    return now() - t0;
  } finally {
    await app.cleanup();
    await fake.close();
  }
}

test('UI benchmark', async () => {
  test.setTimeout(60 * 60_000);
  const results: SizeFigures[] = [];
  for (const n of SIZES) {
    results.push(await measureSize(n));
    process.stderr.write(`measured ${n} replies\n`);
  }
  if (EDITED) {
    results.push(await measureSize(EDITED, EDITS));
    process.stderr.write(`measured ${EDITED} replies with ${EDITS} edits\n`);
  }
  const exchangesMs = await measureExchanges();
  const ref = results[0]!;
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`UI benchmark: ${TOKENS} streamed tokens per measured reply, one API event every ${DELAY_MS} ms; ratios against ${ref.replies} earlier repl${ref.replies === 1 ? 'y' : 'ies'}.`);
  console.log('earlier replies | paint median | paint p95 | p95 ratio | open conversation | open ratio | fetch alone');
  for (const r of results) {
    console.log(
      `${(String(r.replies) + (r.edits ? ` +${r.edits} edits` : '')).padStart(15)} | ${fmt(r.medianMs).padStart(12)} | ${fmt(r.p95Ms).padStart(9)} | ${(r.p95Ms / ref.p95Ms).toFixed(2).padStart(8)}× | ${fmt(r.openMs).padStart(17)} | ${(r.openMs / ref.openMs).toFixed(2).padStart(9)}× | ${fmt(r.fetchMs).padStart(11)}`,
    );
  }
  console.log(`${EXCHANGES} full exchanges (each reply a 60-line code block): ${(exchangesMs / 1000).toFixed(1)} s`);
  const at = (n: number) => results.find((r) => r.replies === n && !r.edits);
  const edited = results.find((r) => r.edits);
  const targets = {
    p95At200: at(200) ? at(200)!.p95Ms <= 50 : undefined,
    growth1to1000: at(1) && at(1000) ? at(1000)!.p95Ms / at(1)!.p95Ms <= 2 : undefined,
    open1000: at(1000) ? at(1000)!.openMs <= 300 : undefined,
    openEdited: edited ? edited.openMs <= 300 : undefined,
  };
  console.log(`targets: p95 ≤ 50 ms at 200 replies: ${targets.p95At200}; p95 growth 1 → 1,000 ≤ 2×: ${targets.growth1to1000}; open 1,000 replies ≤ 300 ms: ${targets.open1000}; open ${EDITED.toLocaleString('en')} with ${EDITS} edits ≤ 300 ms: ${targets.openEdited}`);
  console.log(JSON.stringify({ results, exchangesMs, targets }));
});
