/**
 * A scripted Messages API on 127.0.0.1 for tests: speaks POST /v1/messages as
 * the real SDK calls it — JSON or SSE streaming, Bearer or x-api-key auth,
 * error responses — and records every request so a test can assert on what
 * the SDK sent (the tool_result contents, the system prompt, the betas).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_FAKE_MODELS, handleExtraRoute, type ExtraRoutes } from './models';
import { FakePromptCache, type CacheUsage } from './cache';

export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface FakeMessage {
  kind: 'message';
  content: FakeBlock[];
  stop_reason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'stop_sequence';
  /** Scripted usage, sent as given (cache fields default to 0); a test of a hostile server may put anything here. */
  usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  /** Pause between SSE events, for slow streams. */
  delayMs?: number;
  /** Close the connection after this many SSE events (a dropped connection). */
  dropAfterEvents?: number;
  /** Send garbage instead of the event after this many (a malformed stream). */
  malformedAfterEvents?: number;
  /** Characters per text delta (default 4) so text arrives in pieces. */
  chunk?: number;
  /** Told of each SSE event just before it is written (the UI benchmark times text from here). */
  onEvent?: (name: string, data: unknown) => void;
  /**
   * A hostile server's endless reply: after `content`, one more block of the given kind whose deltas of
   * `chunk` characters keep coming until `bytes` have gone (generated as sent, so the fake itself stays small),
   * or the client hangs up. `sent` counts the characters that went out.
   */
  flood?: { kind: 'text' | 'thinking' | 'tool_input'; bytes: number; chunk: number; sent?: number };
  /** A hostile server's shortcut: each block whole in its content_block_start, with no deltas at all. */
  wholeInStart?: boolean;
  /** Another: every block already in message_start's content, with no block events after it. */
  inMessageStart?: boolean;
}

export interface FakeError {
  kind: 'error';
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

export type FakeReply = FakeMessage | FakeError;

export interface RecordedRequest {
  /** What the fake billed this request's input as (estimated tokens; see cache.ts), when it answered with a message. */
  usage?: CacheUsage & { output_tokens: number };
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    stream?: boolean;
    system?: unknown;
    messages: Array<{ role: string; content: unknown }>;
    tools?: unknown[];
    context_management?: unknown;
    [k: string]: unknown;
  };
}

export type FakeTurn = FakeReply | ((req: RecordedRequest) => FakeReply);

export interface FakeAnthropic {
  baseURL: string;
  apiKey: string;
  /** Every /v1/messages request, in order. */
  requests: RecordedRequest[];
  /** Appends turns: each request takes the next one. */
  script(...turns: FakeTurn[]): void;
  /** Turns not yet taken. */
  remaining(): number;
  /** What answers every request once the script has run out (a server that never stops calling tools); undefined: a 500. */
  otherwise(turn: FakeTurn | undefined): void;
  /** GET /v1/models and POST /v1/messages/count_tokens (see models.ts): set `models`, read what was asked. */
  extra: ExtraRoutes;
  close(): Promise<void>;
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}_${String(++idCounter).padStart(6, '0')}`;

/** A text block. */
export const text = (t: string): FakeBlock => ({ type: 'text', text: t });
/** A memory tool call. */
export const memoryCall = (input: Record<string, unknown>, id = nextId('toolu')): FakeBlock => ({ type: 'tool_use', id, name: 'memory', input });
export const thinking = (t: string): FakeBlock => ({ type: 'thinking', thinking: t });
/** A reply; stop_reason is tool_use when it calls a tool, end_turn otherwise. */
export function reply(...content: FakeBlock[]): FakeMessage {
  return { kind: 'message', content, stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn' };
}
export function apiError(status: number, type: string, message: string, headers?: Record<string, string>): FakeError {
  return { kind: 'error', status, type, message, ...(headers ? { headers } : {}) };
}

/** The tool_result blocks of the last user message of a recorded request. */
export function toolResults(req: RecordedRequest): Array<{ tool_use_id: string; content: unknown; is_error?: boolean }> {
  const last = req.body.messages.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as Array<{ type: string; tool_use_id: string; content: unknown; is_error?: boolean }>).filter((b) => b.type === 'tool_result');
}

/** The text of a tool_result's content, whether a string or text blocks. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? '').join('');
  return '';
}

/** An image or document block as the fake received it, with the index of the message that carried it. */
export interface ReceivedAttachment {
  message: number;
  type: 'image' | 'document';
  source: { type: string; media_type?: string; data?: string; url?: string };
  title?: string;
}

/** The image and document blocks of a recorded request, in the order they came (so tests can assert on attachments). */
export function attachmentBlocks(req: RecordedRequest): ReceivedAttachment[] {
  const out: ReceivedAttachment[] = [];
  req.body.messages.forEach((m, message) => {
    if (!Array.isArray(m.content)) return;
    for (const b of m.content as Array<{ type: string; source?: ReceivedAttachment['source']; title?: string }>) {
      if ((b.type === 'image' || b.type === 'document') && b.source) out.push({ message, type: b.type, source: b.source, ...(b.title !== undefined ? { title: b.title } : {}) });
    }
  });
  return out;
}

/** The API's limits on image and document blocks (see electron/core/chat/attachments.ts for the sources). */
function attachmentProblem(body: RecordedRequest['body']): string | undefined {
  const blocks = attachmentBlocks({ body } as RecordedRequest);
  const images = blocks.filter((b) => b.type === 'image');
  if (images.length > 100) return `messages: too many images in request (${images.length}); the maximum is 100`;
  for (const b of blocks) {
    const s = b.source;
    if (s.type === 'url') return `messages.${b.message}: could not fetch the ${b.type} URL`;
    if (s.type === 'base64') {
      if (typeof s.data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(s.data)) return `messages.${b.message}: ${b.type} source data is not valid base64`;
      const types = b.type === 'image' ? ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] : ['application/pdf'];
      if (!types.includes(s.media_type ?? '')) return `messages.${b.message}: ${b.type} media_type ${String(s.media_type)} is not supported`;
      if (b.type === 'image' && s.data.length > 5 * 1024 * 1024) return `messages.${b.message}: image exceeds 5 MB maximum: ${s.data.length} bytes > 5242880 bytes`;
    } else if (s.type === 'text') {
      if (b.type !== 'document' || s.media_type !== 'text/plain' || typeof s.data !== 'string') return `messages.${b.message}: a text source needs media_type text/plain and data`;
    } else {
      return `messages.${b.message}: unknown source type ${s.type}`;
    }
  }
  return undefined;
}

/**
 * The history rules the real API enforces with a 400, so a test fails where
 * production would: a user message first, no empty text, and every tool_use
 * answered by a tool_result at the start of the next message (and no result
 * without its call).
 */
export function historyProblem(body: RecordedRequest['body']): string | undefined {
  const messages = body.messages ?? [];
  if (!messages.length) return 'messages: at least one message is required';
  if (messages[0]!.role !== 'user') return 'messages.0: the first message must use the "user" role';
  type Block = { type: string; id?: string; tool_use_id?: string; text?: string };
  const blocksOf = (content: unknown): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as Block[]) : []);
  for (const [i, m] of messages.entries()) {
    const blocks = blocksOf(m.content);
    if (!blocks.length) return `messages.${i}: all messages must have non-empty content`;
    if (blocks.some((b) => b.type === 'text' && !b.text?.trim())) return `messages.${i}: text content blocks must contain non-whitespace text`;
    const prev = i > 0 ? blocksOf(messages[i - 1]!.content) : [];
    const calls = messages[i - 1]?.role === 'assistant' ? prev.filter((b) => b.type === 'tool_use').map((b) => b.id) : [];
    if (m.role === 'user') {
      const results = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
      const orphan = results.find((id) => !calls.includes(id));
      if (orphan) return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphan}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      const leading = blocks.slice(0, calls.length).map((b) => (b.type === 'tool_result' ? b.tool_use_id : undefined));
      const missing = calls.filter((id) => !leading.includes(id));
      if (missing.length) return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    } else if (calls.length) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${calls.join(', ')}.`;
    }
  }
  return undefined;
}

export interface FakeOptions {
  apiKey?: string;
  /** Check the history as the API does (default true). */
  validate?: boolean;
  /** The smallest prefix the cache writes, in estimated tokens (default 0; the API's is 1,024 for Sonnet). */
  cacheMinTokens?: number;
}

export async function startFakeAnthropic(opts: FakeOptions = {}): Promise<FakeAnthropic> {
  const apiKey = opts.apiKey ?? 'sk-ant-test-0123456789';
  const cache = new FakePromptCache(opts.cacheMinTokens ?? 0);
  const requests: RecordedRequest[] = [];
  const turns: FakeTurn[] = [];
  let fallback: FakeTurn | undefined;
  const sockets = new Set<Socket>();
  const extra: ExtraRoutes = { models: [...DEFAULT_FAKE_MODELS], countRequests: [], modelListCalls: 0, titleRequests: [] };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      void handle(req, res, raw).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    if (handleExtraRoute(req, res, raw, req.headers.authorization === `Bearer ${apiKey}` || req.headers['x-api-key'] === apiKey, extra)) return;
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      sendError(res, apiError(404, 'not_found_error', `No route ${req.method} ${req.url}`));
      return;
    }
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(raw) as RecordedRequest['body'];
    } catch {
      sendError(res, apiError(400, 'invalid_request_error', 'Body is not JSON'));
      return;
    }
    const recorded: RecordedRequest = { method: req.method, path: req.url, headers: req.headers, body };
    requests.push(recorded);
    const auth = req.headers.authorization === `Bearer ${apiKey}` || req.headers['x-api-key'] === apiKey;
    if (!auth) {
      sendError(res, apiError(401, 'authentication_error', 'invalid x-api-key'));
      return;
    }
    if (raw.length > 32_000_000) {
      sendError(res, apiError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'));
      return;
    }
    const invalid = opts.validate === false ? undefined : (historyProblem(body) ?? attachmentProblem(body));
    if (invalid) {
      sendError(res, apiError(400, 'invalid_request_error', invalid));
      return;
    }
    const turn = turns.shift() ?? fallback;
    if (!turn) {
      sendError(res, apiError(500, 'api_error', 'The fake server has no scripted turn left for this request.'));
      return;
    }
    const r = typeof turn === 'function' ? turn(recorded) : turn;
    if (r.kind === 'error') {
      sendError(res, r);
      return;
    }
    // A scripted usage stands as given; otherwise the input is estimated and billed through the cache.
    const usage = r.usage ? { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...r.usage } : { ...cache.bill(body), output_tokens: 20 };
    recorded.usage = usage;
    if (body.stream) await sendStream(res, r, body.model ?? 'claude-sonnet-4-5', usage);
    else sendJson(res, r, body.model ?? 'claude-sonnet-4-5', usage);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    script: (...t) => void turns.push(...t),
    remaining: () => turns.length,
    otherwise: (t) => void (fallback = t),
    extra,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function sendError(res: http.ServerResponse, e: FakeError): void {
  res.writeHead(e.status, { 'content-type': 'application/json', 'request-id': nextId('req'), ...e.headers });
  res.end(JSON.stringify({ type: 'error', error: { type: e.type, message: e.message } }));
}

type Billed = NonNullable<RecordedRequest['usage']>;

function messageOf(m: FakeMessage, model: string, usage: Billed) {
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: m.content.map((b) => (b.type === 'thinking' ? { ...b, signature: 'sig' } : b)),
    stop_reason: m.stop_reason ?? 'end_turn',
    stop_sequence: null,
    usage,
  };
}

function sendJson(res: http.ServerResponse, m: FakeMessage, model: string, usage: Billed): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': nextId('req') });
  res.end(JSON.stringify(messageOf(m, model, usage)));
}

/** The SSE events of a message, as the API sends them. */
function eventsOf(m: FakeMessage, model: string, usage: Billed): Array<[string, unknown]> {
  const full = messageOf(m, model, usage);
  const events: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message: { ...full, content: m.inMessageStart ? full.content : [], stop_reason: null, usage: { ...full.usage, output_tokens: 1 } } }],
  ];
  const chunk = m.chunk ?? 4;
  (m.inMessageStart ? [] : m.content).forEach((b, index) => {
    if (m.wholeInStart) {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: b.type === 'thinking' ? { ...b, signature: 'sig' } : b }]);
    } else if (b.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      for (let i = 0; i < b.text.length; i += chunk) {
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text.slice(i, i + chunk) } }]);
      }
    } else if (b.type === 'thinking') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: b.thinking } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig' } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }]);
      const json = JSON.stringify(b.input);
      for (let i = 0; i < json.length; i += 16) {
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 16) } }]);
      }
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: full.stop_reason, stop_sequence: null }, usage: { output_tokens: full.usage.output_tokens } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

async function sendStream(res: http.ServerResponse, m: FakeMessage, model: string, usage: Billed): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': nextId('req') });
  const events = eventsOf(m, model, usage);
  for (let i = 0; i < events.length; i++) {
    if (m.dropAfterEvents !== undefined && i >= m.dropAfterEvents) {
      // Let what was written reach the client first, as a real connection would before it dies.
      await new Promise((r) => setTimeout(r, 50));
      res.destroy();
      return;
    }
    if (m.malformedAfterEvents !== undefined && i >= m.malformedAfterEvents) {
      res.end('event: content_block_delta\ndata: {"type": "content_block_delta", "index": \n\n');
      return;
    }
    const [name, data] = events[i]!;
    if (res.destroyed) return;
    if (m.flood && name === 'message_delta') {
      await sendFlood(res, m.flood, m.content.length);
      if (res.destroyed) return;
    }
    m.onEvent?.(name, data);
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    if (m.delayMs) await new Promise((r) => setTimeout(r, m.delayMs));
  }
  res.end();
}

/** Streams a flood block (see FakeMessage.flood), waiting for the socket to drain so only the client's reading paces it. */
async function sendFlood(res: http.ServerResponse, flood: NonNullable<FakeMessage['flood']>, index: number): Promise<void> {
  const write = (name: string, data: unknown) => (res.destroyed ? true : res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`));
  const start = flood.kind === 'text' ? { type: 'text', text: '' } : flood.kind === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : { type: 'tool_use', id: nextId('toolu'), name: 'memory', input: {} };
  write('content_block_start', { type: 'content_block_start', index, content_block: start });
  flood.sent = 0;
  // A tool input is one JSON string that never ends; text and thinking are the same letters over and over.
  let first = flood.kind === 'tool_input' ? '{"command":"create","path":"/memories/flood.md","file_text":"' : '';
  while (flood.sent < flood.bytes && !res.destroyed) {
    const piece = first + 'x'.repeat(Math.min(flood.chunk, flood.bytes - flood.sent));
    first = '';
    flood.sent += piece.length;
    const delta = flood.kind === 'text' ? { type: 'text_delta', text: piece } : flood.kind === 'thinking' ? { type: 'thinking_delta', thinking: piece } : { type: 'input_json_delta', partial_json: piece };
    if (!write('content_block_delta', { type: 'content_block_delta', index, delta })) {
      await new Promise<void>((r) => {
        const go = () => (res.off('drain', go), res.off('close', go), r());
        res.on('drain', go).on('close', go);
      });
    }
  }
  if (!res.destroyed) write('content_block_stop', { type: 'content_block_stop', index });
}
