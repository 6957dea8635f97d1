/**
 * Markdown from Claude, rendered to sanitised HTML (see sanitize.ts for what
 * survives). Code blocks are highlighted after sanitising: the sanitiser drops
 * every class, so only highlight.js — never the text — chooses classes.
 */
import hljs from 'highlight.js/lib/common';
import { Lexer, Marked } from 'marked';
import { isSafeHref, sanitizeHtml, toTrustedHtml } from './sanitize';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

interface CodeBlock {
  text: string;
  lang?: string;
}

/** A fresh marker per render: content cannot guess it, so only our code blocks are replaced. */
function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'mnemo' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function parse(text: string, marker: string, blocks: CodeBlock[]): string {
  const marked = new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      code({ text, lang }) {
        blocks.push({ text, lang: lang?.trim().split(/\s+/)[0] });
        return `<pre><code>${marker}-${blocks.length - 1}</code></pre>\n`;
      },
      // No images: a remote image would tell its server that (and when) the reply was read. Shown as a link instead.
      image({ href, text }) {
        const label = escapeHtml(`Image: ${text || href}`);
        return isSafeHref(href) ? `<a href="${escapeHtml(href)}">${label}</a>` : label;
      },
    },
  });
  return marked.parse(text, { async: false });
}

/**
 * Above this size an unlabelled block is left plain: guessing its language runs
 * every grammar over it, which for a long block costs seconds on the page's only thread.
 */
export const AUTO_HIGHLIGHT_LIMIT = 2048;

/**
 * Characters of guessing allowed per task, however many blocks and renders it
 * draws: the per-block limit alone lets a reply of thousands of small blocks
 * hold the page for seconds. A guess counts at least AUTO_MIN_COST, as each
 * runs every grammar whatever its length; blocks past the budget are left plain.
 */
const AUTO_HIGHLIGHT_BUDGET = 8192;
const AUTO_MIN_COST = 512;
let autoLeft = AUTO_HIGHLIGHT_BUDGET;
let refill: ReturnType<typeof setTimeout> | undefined;

function mayGuess(length: number): boolean {
  // The budget comes back once the page has drawn what this task rendered.
  refill ??= setTimeout(() => {
    autoLeft = AUTO_HIGHLIGHT_BUDGET;
    refill = undefined;
  }, 0);
  const cost = Math.max(length, AUTO_MIN_COST);
  if (length > AUTO_HIGHLIGHT_LIMIT || cost > autoLeft) return false;
  autoLeft -= cost;
  return true;
}

function highlight({ text, lang }: CodeBlock): string {
  const language = lang && hljs.getLanguage(lang) ? lang : undefined;
  const html = language ? hljs.highlight(text, { language, ignoreIllegals: true }).value : mayGuess(text.length) ? hljs.highlightAuto(text).value : escapeHtml(text);
  // The language name is only ever one highlight.js knows, so it cannot carry markup.
  return `<code class="hljs${language ? ` language-${escapeHtml(language)}` : ''}">${html}</code>`;
}

/** Markdown as sanitised HTML (a string), with our highlighted code blocks put back. */
export function renderMarkdown(text: string): string {
  const marker = nonce();
  const blocks: CodeBlock[] = [];
  const clean = sanitizeHtml(parse(text, marker, blocks));
  return clean.replace(new RegExp(`<code>${marker}-(\\d+)</code>`, 'g'), (_m, i: string) => (blocks[Number(i)] ? highlight(blocks[Number(i)]!) : ''));
}

/** The same, signed for the page's innerHTML under Trusted Types. */
export function renderMarkdownTrusted(text: string): string {
  return toTrustedHtml(renderMarkdown(text));
}

const lexerOptions = { gfm: true, breaks: false };

/**
 * Splits streamed Markdown into its closed top-level blocks and the open (last)
 * one, lexing only `text` from `from` (where the closed blocks known so far end).
 * A block is closed once another block has begun after it, so later text can
 * no longer change it (a list stays open while what follows it is a bare number). Returns the new closed blocks' sources and where the open block starts.
 */
export function closeBlocks(text: string, from: number): { closed: string[]; openStart: number } {
  const tail = text.slice(from);
  // The lexer rewrites CR line ends; with them the sources would not add up, so keep everything open.
  if (tail.includes('\r')) return { closed: [], openStart: from };
  const tokens = Lexer.lex(tail, lexerOptions);
  let lastContent = -1;
  let prevContent = -1;
  tokens.forEach((t, i) => {
    if (t.type === 'space') return;
    prevContent = lastContent;
    lastContent = i;
  });
  // A list followed by a bare number may still go on: "2" becomes its item "2. two" once the dot arrives.
  const open = tokens[lastContent];
  const mayContinue = prevContent >= 0 && tokens[prevContent]!.type === 'list' && open !== undefined && /^ {0,3}\d{1,9}$/.test(open.raw);
  const upTo = mayContinue ? prevContent : lastContent;
  const closed: string[] = [];
  let at = from;
  let end = from;
  for (let i = 0; i < upTo; i++) {
    const raw = tokens[i]!.raw;
    if (text.slice(at, at + raw.length) !== raw) return { closed: [], openStart: from };
    at += raw.length;
    if (tokens[i]!.type === 'space') continue;
    closed.push(text.slice(end, at));
    end = at;
  }
  return { closed, openStart: end };
}
