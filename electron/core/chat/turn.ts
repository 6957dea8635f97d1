/**
 * One turn of a conversation: the user's message, then Claude's replies and
 * memory tool calls through the SDK's tool runner until Claude is done (or the
 * turn's round limit), each step reported as a ChatEvent. The conversation is
 * saved afterwards whatever happened, always in a state the API accepts for
 * the next turn. A reply that breaks the rules (repeated tool_use ids, far
 * past its max_tokens) ends the turn; the user's message is kept all the same.
 */
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { BetaContentBlockParam, BetaMessageParam, BetaToolUseBlock } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AttachmentRef, ChatEvent, ReplyPart, Usage } from '../../shared/chat';
import { VaultError, type VaultApi } from '../vault/types';
import { createClient } from './client';
import { Conversations, projectOf, type StoredConversation } from './conversations';
import { UNTITLED } from './conversation-values';
import { nameConversation } from './auto-title';
import { Projects } from '../projects/store';
import { readOnlyMemory, type ConversationStore } from './temporary';
import { mapChatError, mapped, messageOfMapped, type MappedError } from './errors';
import { m, type LocalMessage } from '../i18n/message';
import { costUSD, type TokenCounts } from './pricing';
import { systemPrompt } from './prompt';
import { answerDangling, sendable, STOPPED_RESULT, withUserMessage } from './history';
import { loadSettings } from './settings-store';
import { TurnTools, type ApprovalRequest, type ToolRecord } from './tools';
import { AttachmentError } from './attachments';
import { attachmentsOf, checkRequest, expandAttachments, referenceBlock } from './attachments-send';
import { keptThinking, replyByteLimit, replyMeter, responseByteLimit } from './reply-limits';
import { save } from './turn-save';
import { keptAttachments } from './branches';
import { addUsage, contextManagement, knownStopReason, resultText, toolResultsOf, untilStopped } from './turn-parts';
import { canContinue, CONTENT_IN_START, CUT_REPLY, INTERRUPTED_BY_LOCK, MAX_TOOL_CALLS_PER_REPLY, REPEATED_IDS, roundsReached, TOO_MANY_CALLS, TurnInterrupt, type TurnEnd } from './turn-ends';

export type { ApprovalRequest } from './tools';
export { answerDangling } from './history';
export { TurnInterrupt } from './turn-ends';

export interface TurnOptions {
  /** Told the title a small model gave the conversation after its first exchange (after `done`). */
  onTitled?: (title: string) => void;
  /** Resolve only once that title is stored (the CLI, which exits after the turn); otherwise it is named in the background. */
  awaitTitle?: boolean;
  vault: VaultApi;
  conversationId: string;
  userText: string;
  onEvent: (e: ChatEvent) => void;
  /** Stops the turn; aborted with a TurnInterrupt as its reason (a lock), the message is kept whatever had arrived. */
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
  /** Carry on a turn the round limit stopped (no new message; `userText` is ignored). */
  continueTurn?: boolean;
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
  const refuse = (code: 'unknown' | 'no_key', message: LocalMessage) => {
    emit({ type: 'error', ...mapped(code, message) });
    done('error');
    return false;
  };
  if (opts.continueTurn && !canContinue(conv)) return refuse('unknown', m('errors:turn.nothingToContinue'));
  // Claude sees the memory of the conversation's project as /memories; a deleted project's memory is out of reach.
  const memoryVault = await new Projects(vault).memoryVault(projectOf(conv)).catch(() => undefined);
  if (!memoryVault) {
    return refuse('unknown', m('errors:turn.projectDeleted'));
  }
  // The API wants 1024 <= budget < max_tokens: a small max_tokens is raised to leave room for the answer.
  const thinkingBudget = settings.thinking ? Math.max(1024, Math.min(8192, Math.floor(settings.maxTokens / 2))) : undefined;
  const maxTokens = thinkingBudget === undefined ? settings.maxTokens : Math.max(settings.maxTokens, thinkingBudget + 1024);

  // One controller ends everything of this turn: the caller's stop or lock, and a reply main refuses or cuts.
  const turnAbort = new AbortController();
  const outer = opts.signal;
  const relay = () => turnAbort.abort(outer?.reason);
  if (outer?.aborted) relay();
  else outer?.addEventListener('abort', relay, { once: true });
  /** Why main itself ended the turn, when it did. */
  let ended: TurnEnd | undefined;
  const endTurn = (why: TurnEnd) => {
    ended ??= why;
    turnAbort.abort();
  };

  const tc = await createClient(vault, {
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
    ...(opts.maxRetryWaitSeconds !== undefined ? { maxRetryWaitSeconds: opts.maxRetryWaitSeconds } : {}),
    ...(opts.backoffCapMs !== undefined ? { backoffCapMs: opts.backoffCapMs } : {}),
    onRetry: (r) => emit({ type: 'retrying', attempt: r.attempt, inSeconds: r.inSeconds, reason: r.reason }),
    // A body past this is cut before the SDK holds it, even one endless SSE line.
    maxResponseBytes: responseByteLimit(maxTokens),
    onCut: () => void (ended ??= CUT_REPLY),
  });
  if (!tc) return refuse('no_key', m('errors:turn.noKey'));
  // The model picked for this conversation beside the message box, else the one in Settings.
  const model = conv.model ?? tc.connection.model;

  const tools = new TurnTools(memoryVault, {
    guardMode: () => settings.guardMode,
    emit,
    ...(settings.approvalMode && opts.approve ? { approve: opts.approve } : {}),
    signal: turnAbort.signal,
    // This turn's number in the conversation (1 = the first message): versions Claude writes name it.
    by: { kind: 'claude', conversationId: conv.id, turn: conv.transcript.filter((e) => e.role === 'user').length + (opts.continueTurn ? 0 : 1) },
  });
  const fresh = opts.continueTurn ? [] : (opts.attachments ?? []).map(({ data: _data, ...ref }) => ref);
  // A Continue sends the history as the round limit left it: ending in the last round's tool results.
  // What came before this message: after a round-limit stop it ends in that round's tool results, which the words join.
  const prior = answerDangling(sendable(conv.messages));
  const history = opts.continueTurn ? sendable(conv.messages) : withUserMessage(prior, opts.userText, fresh.map(referenceBlock));
  // Every attachment of the conversation goes again with each request: the API keeps nothing between them.
  const refs = attachmentsOf(conv.transcript);
  for (const a of fresh) refs.set(a.id, a);
  const pending = new Map((opts.attachments ?? []).map((a) => [a.id, a.data]));
  const expanded = await expandAttachments(history, refs, async (id) => pending.get(id) ?? (await conversations.getAttachment(conv.id, id)));
  try {
    checkRequest(expanded.messages, expanded.sent, Buffer.byteLength(systemPrompt(settings.memoryGuidance)) + 16_384, new Set(fresh.map((a) => a.id)));
  } catch (err) {
    if (!(err instanceof AttachmentError)) throw err;
    tools.dispose();
    emit({ type: 'error', ...mapped('too_large', m('errors:turn.notSentInBox', { reason: err.local })) });
    done('error');
    return false;
  }
  const runner = tc.client.beta.messages.toolRunner(
    {
      model,
      max_tokens: maxTokens,
      // Each request of the loop is one round; a server that answers every one with another tool call stops here.
      max_iterations: settings.maxToolRounds,
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
    { signal: turnAbort.signal },
  );

  const texts: string[] = [];
  /** Each round's thinking, kept (capped) with the reply so it can be read again once it is done. */
  const thoughts: string[] = [];
  const records: Array<ToolRecord & { serverId: string }> = [];
  /** Text blocks and tool calls in the order they came, so the window shows them in that order. */
  const parts: ReplyPart[] = [];
  const tokens: TokenCounts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  /** The reply being streamed: all its text, its finished blocks, the text of the block still open, and where its parts begin. */
  let partial: { text: string; blocks: BetaContentBlockParam[]; open: string; partsFrom: number; thinking: string } | undefined;
  /** Every tool_use id of this turn: a server id seen twice could make one approval stand for another call. */
  const seenIds = new Set<string>();
  let rounds = 0;
  let stopReason = 'end_turn';
  let failure: MappedError | undefined;
  try {
    for await (const stream of runner) {
      rounds++;
      tools.reset();
      const current = { text: '', blocks: [] as BetaContentBlockParam[], open: '', partsFrom: parts.length, thinking: '' };
      partial = current;
      stream.on('streamEvent', replyMeter(replyByteLimit(maxTokens), () => endTurn(CUT_REPLY)));
      // Blocks reach the window, the id check and the chips only through block events: content already in message_start would bypass them all.
      stream.on('streamEvent', (event) => event.type === 'message_start' && (event.message.content ?? []).length > 0 && endTurn(CONTENT_IN_START));
      stream.on('text', (delta) => {
        if (ended) return;
        const start = current.open === '';
        current.text += delta;
        current.open += delta;
        emit({ type: 'text', delta, ...(start ? { start } : {}) });
      });
      if (settings.thinking) {
        stream.on('thinking', (delta) => {
          if (ended) return;
          current.thinking += delta;
          emit({ type: 'thinking', delta });
        });
      }
      stream.on('contentBlock', (block) => {
        if (ended) return;
        if (block.type === 'text') {
          current.open = '';
          if (block.text.trim()) current.blocks.push({ type: 'text', text: block.text });
          if (block.text.trim()) parts.push({ type: 'text', text: block.text });
        }
        // Signed thinking goes back with a stopped reply's tool calls, as the API expects it before them.
        if (block.type === 'thinking') current.blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        if (block.type === 'redacted_thinking') current.blocks.push({ type: 'redacted_thinking', data: block.data });
        if (block.type === 'tool_use') {
          // Refused before any of the reply's calls runs: the runner starts them only once the reply is read.
          if (seenIds.has(block.id)) return endTurn(REPEATED_IDS);
          if (current.blocks.filter((b) => b.type === 'tool_use').length >= MAX_TOOL_CALLS_PER_REPLY) return endTurn(TOO_MANY_CALLS);
          seenIds.add(block.id);
          current.blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
          // Only the memory tool is a memory operation; the runner answers any other name with an error.
          if (block.name === 'memory') parts.push({ type: 'tool', id: tools.started(block.id, (block as BetaToolUseBlock).input as Record<string, unknown>, emit) });
        }
      });
      // Settle on a stop even if the stream itself does not (an abort raised from inside a stream listener can leave it pending).
      const message = await untilStopped(stream.finalMessage(), turnAbort.signal);
      // A reply that tripped a limit on its very last event still ends the turn: none of its calls may run.
      if (ended) throw new Error(ended.message);
      addUsage(tokens, message.usage);
      stopReason = knownStopReason(message.stop_reason);
      if (current.text) texts.push(current.text);
      if (current.thinking) thoughts.push(current.thinking);
      if (message.stop_reason === 'tool_use') {
        const response = await runner.generateToolResponse();
        for (const block of toolResultsOf(response)) {
          const record = tools.finished(block.tool_use_id, resultText(block.content), block.is_error === true);
          if (!record) continue;
          records.push(record);
          const { serverId: _server, ...shown } = record;
          emit({ type: 'tool_end', ...shown });
        }
      }
      partial = undefined;
    }
    if (stopReason === 'tool_use' && rounds >= settings.maxToolRounds) {
      failure = roundsReached(rounds);
      stopReason = 'max_rounds';
    }
    if (stopReason === 'max_tokens') failure = mapped('max_tokens', m('errors:turn.maxTokens'));
    if (stopReason === 'refusal') failure = mapped('refusal', m('errors:turn.refusal'));
  } catch (err) {
    const interrupted = outer?.reason instanceof TurnInterrupt;
    failure = ended ?? (interrupted ? INTERRUPTED_BY_LOCK : mapChatError(err, tc.connection.apiKey ? [tc.connection.apiKey] : []));
    stopReason = !ended && (interrupted || failure.code === 'cancelled') ? 'cancelled' : 'error';
  }
  outer?.removeEventListener('abort', relay);
  tools.dispose();

  // A refused reply leaves nothing: not its text, its chips, nor its calls in what the API is sent next.
  if ((ended === REPEATED_IDS || ended === CONTENT_IN_START || ended === TOO_MANY_CALLS) && partial) {
    parts.length = partial.partsFrom;
    partial = undefined;
  }
  // What is kept is the history with references, not the attachments' bytes (stored once, on their own).
  let messages = [...history, ...(runner.params.messages as BetaMessageParam[]).slice(history.length)];
  if (partial) {
    // Stopped or broken in the middle of a reply: keep what arrived and answer every tool call it made.
    if (partial.text) texts.push(partial.text);
    if (partial.thinking) thoughts.push(partial.thinking);
    if (partial.open.trim()) parts.push({ type: 'text', text: partial.open });
    const blocks: BetaContentBlockParam[] = [...partial.blocks, ...(partial.open.trim() ? [{ type: 'text' as const, text: partial.open }] : [])];
    // Thinking alone is no reply worth keeping (and the API wants text or a tool call after it).
    if (blocks.some((b) => b.type === 'text' || b.type === 'tool_use')) {
      messages = [...messages, { role: 'assistant', content: blocks }];
      const answered = new Set(records.map((r) => r.serverId));
      const dangling = blocks.filter((b): b is Extract<BetaContentBlockParam, { type: 'tool_use' }> => b.type === 'tool_use' && !answered.has(b.id));
      if (dangling.length) {
        messages = [...messages, { role: 'user', content: dangling.map((b) => ({ type: 'tool_result' as const, tool_use_id: b.id, content: STOPPED_RESULT, is_error: true })) }];
        for (const b of dangling) {
          const record = tools.finished(b.id, STOPPED_RESULT, true);
          if (record) records.push(record);
        }
      }
    }
  }

  const usage: Usage = { ...tokens, costUSD: costUSD(model, tokens), model };
  // A refused or cut reply, or a lock, keeps the user's message even if nothing of the reply is worth keeping.
  const keepAnyway = ended !== undefined || outer?.reason instanceof TurnInterrupt;
  const gotReply = messages.length > history.length || keepAnyway;
  // After a refusal the API wants the exchange that caused it gone from what it sees next; the transcript keeps it.
  // Without its words, not without the message they joined: the last round's tool results stay answered as they were.
  if (stopReason === 'refusal') messages = opts.continueTurn ? messages.slice(0, history.length) : prior;
  let kept = gotReply;
  let notSaved: VaultError | undefined;
  let saved: StoredConversation | undefined;
  if (gotReply) {
    try {
      saved = await save(conversations, conv, history.length, sendable(messages), opts.continueTurn ? undefined : { text: opts.userText, attachments: opts.attachments ?? [] }, {
        role: 'assistant',
        text: texts.join('\n\n'),
        at: Date.now(),
        tools: records.map(({ serverId: _s, ...r }) => r),
        parts,
        usage,
        ...(thoughts.length ? { thinking: keptThinking(thoughts.join('\n\n')) } : {}),
        ...(stopReason === 'cancelled' ? { stopped: true } : {}),
        ...(failure && failure.code !== 'cancelled' ? { error: { code: failure.code, message: failure.message, ...(failure.key ? { key: failure.key } : {}), ...(failure.params ? { params: failure.params } : {}) } } : {}),
      });
    } catch (err) {
      // The vault could not take the exchange (a full disk, a lock): say so, and leave no attachment it would not name.
      if (!(err instanceof VaultError)) throw err;
      const stored = await conversations.require(conv.id).catch(() => undefined);
      kept = stored !== undefined && stored.transcript.length > conv.transcript.length;
      if (!kept) {
        notSaved = err;
        await conversations.pruneAttachments(conv.id, keptAttachments(stored ?? conv)).catch(() => undefined);
      }
    }
  }
  if (tokens.inputTokens || tokens.outputTokens) emit({ type: 'usage', turn: usage });
  if (failure && !notSaved) {
    const told = kept || failure.code === 'cancelled' ? failure : mapped(failure.code, m('errors:turn.notSentInBox', { reason: messageOfMapped(failure) }));
    emit({ type: 'error', ...told, ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}) });
  }
  if (notSaved) {
    emit({ type: 'error', ...mapped(notSaved.code === 'LOCKED' ? 'locked' : 'unknown', m('errors:turn.replyNotSaved', { reason: notSaved.local })) });
    done('error');
    return false;
  }
  done(stopReason);
  // A first exchange that went well gets a title from a small model (never a temporary chat, never one the user named).
  const replyText = texts.join('\n\n');
  if (saved && settings.autoTitle && !conv.temporary && !opts.continueTurn && conv.transcript.length === 0 && conv.title === UNTITLED && !failure && stopReason === 'end_turn' && replyText.trim()) {
    const naming = nameConversation({ client: tc.client, conversations, conversationId: conv.id, expected: saved.title, userText: opts.userText, replyText, signal: turnAbort.signal }).then((title) => {
      if (title) opts.onTitled?.(title);
    });
    if (opts.awaitTitle) await naming;
  }
  return kept;
}
