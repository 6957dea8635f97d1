/**
 * One turn of a conversation: the user's message, then Claude's replies and
 * memory tool calls through the SDK's tool runner until Claude is done, each
 * step reported as a ChatEvent. The conversation is saved afterwards whatever
 * happened, always in a state the API accepts for the next turn.
 */
import { APIUserAbortError } from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { BetaContentBlockParam, BetaMessageParam, BetaToolResultBlockParam, BetaToolUseBlock } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AttachmentRef, ChatEvent, ReplyPart, TranscriptEntry, Usage } from '../../shared/chat';
import type { Settings } from '../../shared/settings';
import { VaultError, type VaultApi } from '../vault/types';
import { createClient } from './client';
import { Conversations, projectOf, titleFrom, UNTITLED, type StoredConversation } from './conversations';
import { Projects } from '../projects/store';
import { readOnlyMemory, type ConversationStore } from './temporary';
import { mapChatError, type MappedError } from './errors';
import { costUSD, type TokenCounts } from './pricing';
import { systemPrompt } from './prompt';
import { answerDangling, sendable, STOPPED_RESULT, withUserMessage } from './history';
import { loadSettings } from './settings-store';
import { TurnTools, type ApprovalRequest, type ToolRecord } from './tools';
import { AttachmentError } from './attachments';
import { attachmentsOf, checkRequest, expandAttachments, referenceBlock } from './attachments-send';

export type { ApprovalRequest } from './tools';
export { answerDangling } from './history';

export interface TurnOptions {
  vault: VaultApi;
  conversationId: string;
  userText: string;
  onEvent: (e: ChatEvent) => void;
  signal?: AbortSignal;
  /** Asked before each memory write when approval mode is on. */
  approve?: (req: ApprovalRequest) => Promise<boolean>;
  env?: NodeJS.ProcessEnv;
  /** SDK retries for 429/529/5xx (default 2). */
  maxRetries?: number;
  /** See ClientHooks: the longest server-requested wait sat through, and the backoff cap. */
  maxRetryWaitSeconds?: number;
  backoffCapMs?: number;
  /** Where the conversation lives (default: the vault); a TemporaryConversations for a temporary chat. */
  conversations?: ConversationStore;
  /** Automatic prompt caching on every request (default true; off only to measure what it saves). */
  promptCaching?: boolean;
  /** Files attached to this message, already checked (checkAttachment); stored with the conversation when the exchange is saved. */
  attachments?: PendingAttachment[];
}

/** An attachment going out with this message: its reference and its bytes. */
export interface PendingAttachment extends AttachmentRef {
  data: Uint8Array;
}

/**
 * Runs one turn. Never throws for API trouble: it reports an `error` event and
 * still ends with `done`. Resolves true if the exchange was saved (the message
 * and its attachments are in the conversation), false if it was not sent.
 */
export async function runTurn(opts: TurnOptions): Promise<boolean> {
  const { vault, onEvent: emit } = opts;
  const conversations = opts.conversations ?? new Conversations(vault);
  const conv = await conversations.require(opts.conversationId);
  const settings = await loadSettings(vault);
  const done = (stopReason: string) => emit({ type: 'done', stopReason, conversationId: conv.id });
  // Claude sees the memory of the conversation's project as /memories; a deleted project's memory is out of reach.
  const memoryVault = await new Projects(vault).memoryVault(projectOf(conv)).catch(() => undefined);
  if (!memoryVault) {
    emit({ type: 'error', code: 'unknown', message: 'This conversation’s project was deleted, so its memory is out of reach. Restore the project (mnemo projects restore NAME) to continue here, or start a new conversation.' });
    done('error');
    return false;
  }

  const tc = await createClient(vault, {
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
    ...(opts.maxRetryWaitSeconds !== undefined ? { maxRetryWaitSeconds: opts.maxRetryWaitSeconds } : {}),
    ...(opts.backoffCapMs !== undefined ? { backoffCapMs: opts.backoffCapMs } : {}),
    onRetry: (r) => emit({ type: 'retrying', attempt: r.attempt, inSeconds: r.inSeconds, reason: r.reason }),
  });
  if (!tc) {
    emit({ type: 'error', code: 'no_key', message: 'No Anthropic API key is set. Add one in Settings (or set ANTHROPIC_API_KEY), then send again.' });
    done('error');
    return false;
  }

  const tools = new TurnTools(memoryVault, {
    guardMode: () => settings.guardMode,
    emit,
    ...(settings.approvalMode && opts.approve ? { approve: opts.approve } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    // This turn's number in the conversation (1 = the first message): versions Claude writes name it.
    by: { kind: 'claude', conversationId: conv.id, turn: conv.transcript.filter((e) => e.role === 'user').length + 1 },
  });
  // The API wants 1024 <= budget < max_tokens: a small max_tokens is raised to leave room for the answer.
  const thinkingBudget = settings.thinking ? Math.max(1024, Math.min(8192, Math.floor(tc.connection.maxTokens / 2))) : undefined;
  const fresh = (opts.attachments ?? []).map(({ data: _data, ...ref }) => ref);
  const history = withUserMessage(answerDangling(sendable(conv.messages)), opts.userText, fresh.map(referenceBlock));
  // Every attachment of the conversation goes again with each request: the API keeps nothing between them.
  const refs = attachmentsOf(conv.transcript);
  for (const a of fresh) refs.set(a.id, a);
  const pending = new Map((opts.attachments ?? []).map((a) => [a.id, a.data]));
  const expanded = await expandAttachments(history, refs, async (id) => pending.get(id) ?? (await conversations.getAttachment(conv.id, id)));
  try {
    checkRequest(expanded.messages, expanded.sent, Buffer.byteLength(systemPrompt(settings.memoryGuidance)) + 16_384, new Set(fresh.map((a) => a.id)));
  } catch (err) {
    if (!(err instanceof AttachmentError)) throw err;
    emit({ type: 'error', code: 'too_large', message: `${err.message} Your message was not sent; it is still in the box.` });
    done('error');
    return false;
  }
  const runner = tc.client.beta.messages.toolRunner(
    {
      model: tc.connection.model,
      max_tokens: thinkingBudget === undefined ? tc.connection.maxTokens : Math.max(tc.connection.maxTokens, thinkingBudget + 1024),
      system: systemPrompt(settings.memoryGuidance),
      messages: expanded.messages,
      tools: [betaMemoryTool(conv.temporary ? readOnlyMemory(tools.handlers) : tools.handlers)],
      stream: true,
      thread: false,
      betas: ['context-management-2025-06-27', ...(settings.compaction ? ['compact-2026-01-12' as const] : [])],
      context_management: contextManagement(settings),
      // Automatic caching: the API moves one breakpoint to the last block of each request, so every tool round
      // trip and every next turn reads the tools, system prompt and history from the cache instead of paying for them again.
      ...(opts.promptCaching === false ? {} : { cache_control: { type: 'ephemeral' as const } }),
      ...(thinkingBudget !== undefined ? { thinking: { type: 'enabled' as const, budget_tokens: thinkingBudget } } : {}),
    },
    opts.signal ? { signal: opts.signal } : {},
  );

  const texts: string[] = [];
  const records: ToolRecord[] = [];
  /** Text blocks and tool calls in the order they came, so the window shows them in that order. */
  const parts: ReplyPart[] = [];
  const tokens: TokenCounts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  /** The reply being streamed: all its text, its finished blocks, and the text of the block still open. */
  let partial: { text: string; blocks: BetaContentBlockParam[]; open: string } | undefined;
  let stopReason = 'end_turn';
  let failure: MappedError | undefined;
  try {
    for await (const stream of runner) {
      tools.reset();
      const current = { text: '', blocks: [] as BetaContentBlockParam[], open: '' };
      partial = current;
      stream.on('text', (delta) => {
        const start = current.open === '';
        current.text += delta;
        current.open += delta;
        emit({ type: 'text', delta, ...(start ? { start } : {}) });
      });
      if (settings.thinking) stream.on('thinking', (delta) => emit({ type: 'thinking', delta }));
      stream.on('contentBlock', (block) => {
        if (block.type === 'text') {
          current.open = '';
          if (block.text.trim()) current.blocks.push({ type: 'text', text: block.text });
          if (block.text.trim()) parts.push({ type: 'text', text: block.text });
        }
        // Signed thinking goes back with a stopped reply's tool calls, as the API expects it before them.
        if (block.type === 'thinking') current.blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        if (block.type === 'redacted_thinking') current.blocks.push({ type: 'redacted_thinking', data: block.data });
        if (block.type === 'tool_use') {
          current.blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
          parts.push({ type: 'tool', id: block.id });
          tools.started(block.id, (block as BetaToolUseBlock).input as Record<string, unknown>, emit);
        }
      });
      // Settle on a stop even if the stream itself does not (an abort raised from inside a stream listener can leave it pending).
      const message = await untilStopped(stream.finalMessage(), opts.signal);
      addUsage(tokens, message.usage);
      stopReason = knownStopReason(message.stop_reason);
      if (current.text) texts.push(current.text);
      if (message.stop_reason === 'tool_use') {
        const response = await runner.generateToolResponse();
        for (const block of toolResultsOf(response)) {
          const record = tools.finished(block.tool_use_id, resultText(block.content), block.is_error === true);
          records.push(record);
          emit({ type: 'tool_end', ...record });
        }
      }
      partial = undefined;
    }
    if (stopReason === 'max_tokens') failure = { code: 'max_tokens', message: 'The reply reached the maximum length. Ask Claude to continue, or raise “Max tokens” in Settings.' };
    if (stopReason === 'refusal') failure = { code: 'refusal', message: 'Claude declined to answer this. That exchange is left out of what Claude sees next; rephrase the request, or start a new conversation.' };
  } catch (err) {
    failure = mapChatError(err, tc.connection.apiKey ? [tc.connection.apiKey] : []);
    stopReason = failure.code === 'cancelled' ? 'cancelled' : 'error';
  }
  tools.dispose();

  // What is kept is the history with references, not the attachments' bytes (stored once, on their own).
  let messages = [...history, ...(runner.params.messages as BetaMessageParam[]).slice(history.length)];
  if (partial) {
    // Stopped or broken in the middle of a reply: keep what arrived and answer every tool call it made.
    if (partial.text) texts.push(partial.text);
    if (partial.open.trim()) parts.push({ type: 'text', text: partial.open });
    const blocks: BetaContentBlockParam[] = [...partial.blocks, ...(partial.open.trim() ? [{ type: 'text' as const, text: partial.open }] : [])];
    // Thinking alone is no reply worth keeping (and the API wants text or a tool call after it).
    if (blocks.some((b) => b.type === 'text' || b.type === 'tool_use')) {
      messages = [...messages, { role: 'assistant', content: blocks }];
      const answered = new Set(records.map((r) => r.id));
      const dangling = blocks.filter((b): b is Extract<BetaContentBlockParam, { type: 'tool_use' }> => b.type === 'tool_use' && !answered.has(b.id));
      if (dangling.length) {
        messages = [...messages, { role: 'user', content: dangling.map((b) => ({ type: 'tool_result' as const, tool_use_id: b.id, content: STOPPED_RESULT, is_error: true })) }];
        for (const b of dangling) records.push({ ...tools.finished(b.id, STOPPED_RESULT, true) });
      }
    }
  }

  const usage: Usage = { ...tokens, costUSD: costUSD(tc.connection.model, tokens), model: tc.connection.model };
  const gotReply = messages.length > history.length;
  // After a refusal the API wants the exchange that caused it gone from what it sees next; the transcript keeps it.
  if (stopReason === 'refusal') messages = messages.slice(0, history.length - 1);
  let kept = gotReply;
  let notSaved: VaultError | undefined;
  if (gotReply) {
    try {
      await save(conversations, conv, history.length, sendable(messages), { text: opts.userText, attachments: opts.attachments ?? [] }, {
        role: 'assistant',
        text: texts.join('\n\n'),
        at: Date.now(),
        tools: records,
        parts,
        usage,
        ...(stopReason === 'cancelled' ? { stopped: true } : {}),
        ...(failure && failure.code !== 'cancelled' ? { error: { code: failure.code, message: failure.message } } : {}),
      });
    } catch (err) {
      // The vault could not take the exchange (a full disk, a lock): say so, and leave no attachment it would not name.
      if (!(err instanceof VaultError)) throw err;
      const stored = await conversations.require(conv.id).catch(() => undefined);
      kept = stored !== undefined && stored.transcript.length > conv.transcript.length;
      if (!kept) {
        notSaved = err;
        await conversations.pruneAttachments(conv.id, new Set(attachmentsOf((stored ?? conv).transcript).keys())).catch(() => undefined);
      }
    }
  }
  if (tokens.inputTokens || tokens.outputTokens) emit({ type: 'usage', turn: usage });
  if (failure && !notSaved) {
    const inBox = kept ? '' : ' Your message was not sent; it is still in the box.';
    emit({ type: 'error', code: failure.code, message: failure.message + (failure.code === 'cancelled' ? '' : inBox), ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}) });
  }
  if (notSaved) {
    emit({ type: 'error', code: notSaved.code === 'LOCKED' ? 'locked' : 'unknown', message: `${notSaved.message} Claude’s reply was not saved. Your message was not sent; it is still in the box.` });
    done('error');
    return false;
  }
  done(stopReason);
  return kept;
}

async function save(conversations: ConversationStore, base: StoredConversation, historyLength: number, messages: BetaMessageParam[], user: { text: string; attachments: PendingAttachment[] }, reply: TranscriptEntry): Promise<void> {
  const now = Date.now();
  const userText = user.text;
  const attachments = user.attachments.map(({ data: _data, ...ref }) => ref);
  // The bytes first: the entry that refers to them is written only once they are durable.
  for (const a of user.attachments) await conversations.putAttachment(base.id, a.id, a.data);
  // Applied to the conversation as it is now: the user may have renamed it while Claude answered (or deleted it, which stands).
  // `base`, read when the turn began, spares reading the whole conversation again: the save writes only this exchange.
  const saved = await conversations.update(base.id, (conv) => {
    const { after, start } = rebase(conv.messages, base.messages, messages, historyLength, userText, attachments.map(referenceBlock));
    return {
      ...conv,
      title: conv.title === UNTITLED && conv.transcript.length === 0 ? titleFrom(userText.trim() ? userText : attachments.map((a) => a.name).join(', ')) : conv.title,
      updated: now,
      messages: after,
      // The user's words are always in the last message of the history the exchange follows.
      turnStarts: [...(conv.turnStarts ?? []), start],
      transcript: [...conv.transcript, { role: 'user', text: userText, at: now, ...(attachments.length ? { attachments } : {}) }, reply],
    };
  }, base);
  // Bytes nothing names any more (a cut-short earlier save, a message taken back and not sent again, or all of them
  // if the conversation was deleted while Claude answered) go now.
  await conversations.pruneAttachments(base.id, new Set(saved ? attachmentsOf(saved.transcript).keys() : []));
}

/**
 * The API history with this exchange, and where its user message is. The turn
 * sent `historyLength` messages built from `began`; if the stored history has
 * changed since (the last exchange was taken back while Claude answered), the
 * exchange is put after the history as it is now, so what Claude is sent next
 * agrees with the transcript instead of bringing the taken-back exchange back.
 */
function rebase(now: BetaMessageParam[], began: BetaMessageParam[], messages: BetaMessageParam[], historyLength: number, userText: string, attachments: BetaContentBlockParam[]): { after: BetaMessageParam[]; start: number } {
  if (now === began || (now.length === began.length && JSON.stringify(now) === JSON.stringify(began))) return { after: messages, start: historyLength - 1 };
  const history = withUserMessage(answerDangling(sendable(now)), userText, attachments);
  // A refusal's exchange is already cut from `messages` (shorter than what was sent): then it stays out here too.
  const after = messages.length >= historyLength ? [...history, ...messages.slice(historyLength)] : history.slice(0, -1);
  return { after, start: history.length - 1 };
}

function contextManagement(settings: Settings) {
  const cm = settings.contextManagement;
  const edits = [];
  if (cm.enabled) {
    edits.push({
      type: 'clear_tool_uses_20250919' as const,
      trigger: { type: 'input_tokens' as const, value: cm.triggerInputTokens },
      keep: { type: 'tool_uses' as const, value: cm.keepToolUses },
      clear_at_least: { type: 'input_tokens' as const, value: cm.clearAtLeastTokens },
      exclude_tools: ['memory'],
    });
  }
  if (settings.compaction) edits.push({ type: 'compact_20260112' as const });
  return { edits } as never;
}

function toolResultsOf(response: BetaMessageParam | null): BetaToolResultBlockParam[] {
  if (!response || !Array.isArray(response.content)) return [];
  return (response.content as BetaContentBlockParam[]).filter((b): b is BetaToolResultBlockParam => b.type === 'tool_result');
}

function resultText(content: BetaToolResultBlockParam['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((c) => ('text' in c ? c.text : '')).join('');
}

/** The API's stop reasons; the server's string goes on to the window, so anything else is reported as `unknown`. */
const STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

function knownStopReason(reason: string | null | undefined): string {
  if (reason === null || reason === undefined) return 'end_turn';
  return STOP_REASONS.has(reason) ? reason : 'unknown';
}

function untilStopped<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new APIUserAbortError());
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** More tokens than any request can carry: a count above it is a broken or hostile server's, not a bill. */
const MAX_TOKENS_PER_RESPONSE = 100_000_000;

/**
 * A usage count as the server sent it, if it is one: a whole number from 0 up.
 * Anything else counts as 0, so a stored reply's usage always passes the IPC
 * contract (a string or NaN saved there would stop the conversation opening)
 * and totals never turn negative or NaN.
 */
function tokenCount(n: unknown): number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_TOKENS_PER_RESPONSE ? n : 0;
}

function addUsage(t: TokenCounts, u: { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown } | null | undefined): void {
  if (typeof u !== 'object' || u === null) return;
  t.inputTokens += tokenCount(u.input_tokens);
  t.outputTokens += tokenCount(u.output_tokens);
  t.cacheReadTokens += tokenCount(u.cache_read_input_tokens);
  t.cacheWriteTokens += tokenCount(u.cache_creation_input_tokens);
}
