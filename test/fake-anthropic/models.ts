/**
 * The fake API's GET /v1/models, POST /v1/messages/count_tokens and the
 * conversation-title Messages request, kept apart from the scripted Messages
 * turns: these answer the same way every time and never take a scripted turn.
 */
import type http from 'node:http';
import { TITLE_SYSTEM } from '../../electron/core/chat/auto-title';

/** A model as GET /v1/models lists it (the fields Mnemo reads, plus the type tag). */
export interface FakeModel {
  id: string;
  display_name: string;
  /** null: the API did not say, as older model objects do not. */
  max_input_tokens: number | null;
}

/** What the fake lists unless a test sets its own: one model without a stated window, to exercise the fallback. */
export const DEFAULT_FAKE_MODELS: FakeModel[] = [
  { id: 'claude-sonnet-4-6', display_name: 'Claude Sonnet 4.6', max_input_tokens: 1_000_000 },
  { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', max_input_tokens: 200_000 },
  { id: 'claude-opus-4-1', display_name: 'Claude Opus 4.1', max_input_tokens: null },
];

/** The deterministic token estimate count_tokens answers: a quarter of the characters of what would be sent, rounded up. */
export function estimateTokens(body: { system?: unknown; messages?: unknown; tools?: unknown }): number {
  return Math.ceil(JSON.stringify([body.system ?? null, body.messages ?? [], body.tools ?? []]).length / 4);
}

export interface ExtraRoutes {
  models: FakeModel[];
  /** Bodies of every count_tokens request, in order. */
  countRequests: Array<Record<string, unknown>>;
  /** GET /v1/models calls so far. */
  modelListCalls: number;
  /**
   * A raw answer to GET /v1/models instead of `models`, for a broken or
   * hostile server: any status and body (sent as JSON's content type whatever
   * it holds). Told the request's URL, so it can page as it likes.
   */
  modelsReply?: (url: URL) => { status: number; body: string };
  /** Drop every GET /v1/models connection unanswered, before any auth check: a network failing mid-request, as the client sees it. */
  modelsHangUp?: boolean;
  /** A raw answer to count_tokens instead of the estimate, likewise. */
  countReply?: (body: Record<string, unknown>) => { status: number; body: string };
  /** Bodies of every conversation-title request (a Messages request with the title system prompt), in order; they are not in `requests` and take no scripted turn. */
  titleRequests: Array<Record<string, unknown>>;
  /** What a title request is answered: this text (default empty, so titles stay as the first message made them), or a raw answer. */
  titleReply?: string | ((body: Record<string, unknown>) => { status: number; body: string });
}

/**
 * Answers the request if it is one of these routes (true), after checking
 * auth as the API does; false leaves it to the Messages handler.
 */
export function handleExtraRoute(req: http.IncomingMessage, res: http.ServerResponse, raw: string, authorized: boolean, state: ExtraRoutes): boolean {
  const url = new URL(req.url ?? '/', 'http://fake');
  const isModels = req.method === 'GET' && url.pathname === '/v1/models';
  const isCount = req.method === 'POST' && url.pathname === '/v1/messages/count_tokens';
  const isTitle = req.method === 'POST' && url.pathname === '/v1/messages' && raw.includes(JSON.stringify(TITLE_SYSTEM).slice(1, 40));
  if (!isModels && !isCount && !isTitle) return false;
  if (isModels && state.modelsHangUp) {
    res.socket?.destroy();
    return true;
  }
  if (!authorized) {
    json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    return true;
  }
  if (isModels) {
    state.modelListCalls++;
    if (state.modelsReply) {
      const r = state.modelsReply(url);
      res.writeHead(r.status, { 'content-type': 'application/json', 'request-id': `req_extra_${Date.now()}` });
      res.end(r.body);
      return true;
    }
    // Pages as the API does: `limit` models after `after_id`.
    const all = state.models.map((m) => ({ type: 'model', created_at: '2025-01-01T00:00:00Z', ...m }));
    const after = url.searchParams.get('after_id');
    const start = after ? all.findIndex((m) => m.id === after) + 1 : 0;
    const limit = Number(url.searchParams.get('limit') ?? 20) || 20;
    const data = all.slice(start, start + limit);
    json(res, 200, { data, has_more: start + limit < all.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    return true;
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'Body is not JSON' } });
    return true;
  }
  if (isTitle) {
    // Only the exact title prompt: a conversation quoting it is still a scripted turn.
    if (body.system !== TITLE_SYSTEM) return false;
    state.titleRequests.push(body);
    const reply = state.titleReply ?? '';
    if (typeof reply === 'function') {
      const r = reply(body);
      res.writeHead(r.status, { 'content-type': 'application/json', 'request-id': `req_extra_${Date.now()}` });
      res.end(r.body);
      return true;
    }
    json(res, 200, { id: `msg_title_${Date.now()}`, type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: reply }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 50, output_tokens: 8 } });
    return true;
  }
  state.countRequests.push(body);
  if (state.countReply) {
    const r = state.countReply(body);
    res.writeHead(r.status, { 'content-type': 'application/json', 'request-id': `req_extra_${Date.now()}` });
    res.end(r.body);
    return true;
  }
  json(res, 200, { input_tokens: estimateTokens(body) });
  return true;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_extra_${Date.now()}` });
  res.end(JSON.stringify(body));
}
