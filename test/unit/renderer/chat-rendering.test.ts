// @vitest-environment jsdom
/**
 * How much rendering work a streamed reply costs: counted, not timed. The
 * Markdown parser and highlight.js are wrapped to count their calls, frames are
 * driven by hand (requestAnimationFrame queued until the test runs it), and
 * every IPC event arrives in a task of its own, as it does from main.
 */
import { act, createElement, Profiler } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type hljsApi from 'highlight.js';
import type * as markedModule from 'marked';
import type { ChatEvent, TranscriptEntry } from '../../../electron/shared/chat';

const counts = vi.hoisted(() => ({ parsed: [] as string[], highlights: 0 }));

vi.mock('marked', async (importOriginal) => {
  const m = await importOriginal<typeof markedModule>();
  class CountingMarked extends m.Marked {
    constructor(...args: ConstructorParameters<typeof m.Marked>) {
      super(...(args as unknown as []));
      const parse = this.parse.bind(this);
      this.parse = ((src: string, opts?: Parameters<typeof parse>[1]) => {
        counts.parsed.push(src);
        return parse(src, opts);
      }) as typeof this.parse;
    }
  }
  return { ...m, Marked: CountingMarked };
});

vi.mock('highlight.js/lib/common', async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof hljsApi }>()).default;
  const wrapped = Object.create(real) as typeof real;
  wrapped.highlight = ((...a: Parameters<typeof real.highlight>) => {
    counts.highlights++;
    return real.highlight(...a);
  }) as typeof real.highlight;
  wrapped.highlightAuto = ((...a: Parameters<typeof real.highlightAuto>) => {
    counts.highlights++;
    return real.highlightAuto(...a);
  }) as typeof real.highlightAuto;
  return { default: wrapped };
});

const { ChatView } = await import('../../../renderer/features/chat/ChatView');

const CODE = Array.from({ length: 60 }, (_, i) => `const value${i} = compute(${i}); // line ${i}`).join('\n');
const earlierReply = (n: number) => `Earlier reply number ${n}.\n\n\`\`\`ts\n${CODE}\n\`\`\`\n`;

function conversation(replies: number): TranscriptEntry[] {
  const t: TranscriptEntry[] = [];
  for (let i = 0; i < replies; i++) {
    t.push({ role: 'user', text: `Question ${i}`, at: 1000 + 2 * i });
    t.push({ role: 'assistant', text: earlierReply(i), at: 1001 + 2 * i, tools: [] });
  }
  return t;
}

let frames: FrameRequestCallback[] = [];
let listener: ((p: { turnId: string; conversationId: string; event: ChatEvent }) => void) | undefined;
let root: Root;
let container: HTMLDivElement;
let commits = 0;

/** Runs one animation frame: every callback queued so far. */
async function frame(): Promise<void> {
  await act(async () => {
    const run = frames;
    frames = [];
    for (const cb of run) cb(performance.now());
  });
}
/** One event from main, in a task of its own. */
async function emit(event: ChatEvent): Promise<void> {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
    listener?.({ turnId: 't1', conversationId: 'c0ffee0000000001', event });
  });
}

beforeEach(async () => {
  counts.parsed.length = 0;
  counts.highlights = 0;
  frames = [];
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal('cancelAnimationFrame', () => undefined);
  // jsdom lays nothing out: give every element a size, so the transcript has a window's worth of messages on screen.
  vi.spyOn(Element.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(Element.prototype, 'clientWidth', 'get').mockReturnValue(800);
  const ok = <T>(value: T) => Promise.resolve({ ok: true, value });
  const conv = { id: 'c0ffee0000000001', title: 'Long one', created: 1, updated: 2, transcript: conversation(50) };
  window.mnemo = {
    chatList: () => ok([{ id: conv.id, title: conv.title, created: 1, updated: 2, messageCount: 100 }]),
    chatGet: () => ok(conv),
    chatSend: () => ok({ turnId: 't1' }),
    chatStop: () => ok(undefined),
    on: (_event: string, l: typeof listener) => {
      listener = l;
      return () => undefined;
    },
  } as unknown as Window['mnemo'];
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
  await act(async () => {
    root.render(createElement(Profiler, { id: 'chat', onRender: () => void commits++ }, createElement(ChatView, { active: true, onOpenMemory: () => undefined, onOpenSettings: () => undefined })));
  });
  for (let i = 0; i < 5; i++) await frame();
  // Send a message the way a person does: type it, press Enter.
  const box = container.querySelector('textarea')!;
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(box, 'Show me some code');
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await act(async () => {
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  });
  await frame();
});

afterEach(async () => {
  await act(async () => root.unmount());
  container.remove();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

it('streaming 100 deltas after 50 earlier replies parses no earlier reply and highlights a closed code block once', async () => {
  counts.parsed.length = 0;
  counts.highlights = 0;
  const head = 'Here is the code:\n\n```ts\nconst answer = 42;\n```\n\n';
  for (let i = 0; i < head.length; i += 10) {
    await emit({ type: 'text', delta: head.slice(i, i + 10) });
    await frame();
  }
  const highlightsWhenClosed = counts.highlights;
  for (let i = 0; i < 100; i++) {
    await emit({ type: 'text', delta: `word${i} ` });
    await frame();
  }
  expect(container.textContent).toContain('word99');
  // Earlier replies are on screen, and none of them is parsed again while the new one streams.
  expect(container.textContent).toContain('Earlier reply number');
  expect(counts.parsed.filter((src) => src.includes('Earlier reply number'))).toEqual([]);
  // The code block closed before the paragraph began: it is not highlighted again for each word.
  expect(counts.highlights - highlightsWhenClosed).toBeLessThanOrEqual(1);
  // Each frame parses only the open block, never the closed code block again.
  expect(counts.parsed.slice(-50).filter((src) => src.includes('const answer'))).toEqual([]);
});

it('a burst of text deltas arriving within one frame costs one render', async () => {
  await emit({ type: 'text', delta: 'Start. ' });
  await frame();
  commits = 0;
  counts.parsed.length = 0;
  for (let i = 0; i < 10; i++) await emit({ type: 'text', delta: `burst${i} ` });
  await frame();
  expect(container.textContent).toContain('burst9');
  expect(commits).toBe(1);
  expect(counts.parsed.length).toBe(1);
});
