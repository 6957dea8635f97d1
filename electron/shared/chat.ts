/**
 * The chat's shared shapes: the events of one turn (main → UI and CLI) and
 * conversation summaries. Zod only, so the renderer can `import type` them.
 */
import { z } from 'zod';
import { MessageParams } from './messages';

export const MemoryCommandName = z.enum(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']);

export const ChatErrorCode = z.enum([
  'no_key',
  'auth',
  'permission',
  'rate_limited',
  'overloaded',
  'network',
  'too_large',
  'refusal',
  'max_tokens',
  /** The turn made as many requests as the round limit allows; Continue runs the next ones. */
  'max_rounds',
  'cancelled',
  'server',
  'locked',
  'unknown',
]);
export type ChatErrorCode = z.infer<typeof ChatErrorCode>;

export const Usage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  /** Dollars at the model's list price; null when the model's price is unknown. */
  costUSD: z.number().nullable(),
  model: z.string(),
});
export type Usage = z.infer<typeof Usage>;

/** One memory tool call as it ended: what Claude received, and what the UI shows about it. */
/** What a change waiting for approval does to the memory as it is now: an edit's diff, or what a delete removes. */
export const ApprovalChange = z.object({
  diff: z.object({ before: z.string(), after: z.string() }).optional(),
  removes: z.object({ files: z.array(z.string()), text: z.string().optional() }).optional(),
});

export const ToolRecord = z.object({
  id: z.string(),
  command: z.string(),
  path: z.string(),
  newPath: z.string().optional(),
  /** The exact text Claude received. */
  content: z.string(),
  isError: z.boolean(),
  /** For edits: the file before and after, so the UI can show a diff. */
  diff: z.object({ before: z.string(), after: z.string() }).optional(),
  /** The version the change created, for "undo this change". */
  version: z.number().optional(),
  /** Why it failed, for the user, when main knows better than `content`: a catalog key (`errors:…`) and its English. */
  reason: z.object({ key: z.string(), text: z.string() }).optional(),
});
export type ToolRecord = z.infer<typeof ToolRecord>;

export const ChatEvent = z.discriminatedUnion('type', [
  /** `start`: the delta opens a new text block (shown apart from the text before it). */
  z.object({ type: z.literal('text'), delta: z.string(), start: z.boolean().optional() }),
  z.object({ type: z.literal('thinking'), delta: z.string() }),
  z.object({ type: z.literal('tool_start'), id: z.string(), command: z.string(), path: z.string(), newPath: z.string().optional() }),
  ToolRecord.extend({ type: z.literal('tool_end') }),
  z.object({
    type: z.literal('approval'),
    id: z.string(),
    command: z.string(),
    path: z.string(),
    newPath: z.string().optional(),
    /** What the change would write (file text or inserted text), if any. */
    preview: z.string().optional(),
    /** What the change does, computed in main from the memory as it is now: an edit's diff, or what a delete removes. */
    change: ApprovalChange.optional(),
  }),
  z.object({ type: z.literal('usage'), turn: Usage }),
  z.object({
    type: z.literal('error'),
    code: ChatErrorCode,
    /** What happened and what to do next, for the user (English; `key` and `params` say it in the window's language). */
    message: z.string(),
    key: z.string().max(200).optional(),
    params: MessageParams.optional(),
    retryAfterSeconds: z.number().optional(),
  }),
  z.object({ type: z.literal('retrying'), attempt: z.number(), inSeconds: z.number(), reason: ChatErrorCode }),
  z.object({ type: z.literal('done'), stopReason: z.string(), conversationId: z.string() }),
]);
export type ChatEvent = z.infer<typeof ChatEvent>;

export const ConversationSummary = z.object({
  id: z.string(),
  title: z.string(),
  created: z.number(),
  updated: z.number(),
  messageCount: z.number(),
  /** The project's id; absent for the first project (conversations stored before projects). */
  project: z.string().optional(),
  /** A temporary chat (never stored; gone when closed, locked or quit). */
  temporary: z.boolean().optional(),
  /** Pinned above the dated groups; absent (as in everything stored before) means not pinned. */
  pinned: z.boolean().optional(),
  /** Archived: out of the list, shown in the Archived view; absent means not archived. */
  archived: z.boolean().optional(),
});
export type ConversationSummary = z.infer<typeof ConversationSummary>;

/** Where a search query is in a snippet, [start, end) in UTF-16 units, for the window to mark. */
export const SnippetMarks = z.array(z.tuple([z.number().int().min(0), z.number().int().min(0)])).max(50);
export type SnippetMarks = z.infer<typeof SnippetMarks>;

export const ReplyPart = z.discriminatedUnion('type', [z.object({ type: z.literal('text'), text: z.string() }), z.object({ type: z.literal('tool'), id: z.string() })]);
export type ReplyPart = z.infer<typeof ReplyPart>;

/** What an attachment's bytes were found to be (by their content, never by the file's name). */
export const AttachmentMediaType = z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain']);
export type AttachmentMediaType = z.infer<typeof AttachmentMediaType>;

/** An attachment as a user message refers to it; its bytes are a separate encrypted value kept with the conversation. */
export const AttachmentRef = z.object({
  id: z.string().regex(/^[0-9a-f]{16,32}$/),
  /** The file's name, cleaned (no folders, control or bidi characters, capped length). */
  name: z.string().min(1).max(200),
  mediaType: AttachmentMediaType,
  /** Size in bytes. */
  bytes: z.number().int().min(1),
});
export type AttachmentRef = z.infer<typeof AttachmentRef>;

/** One entry of the transcript as the UI shows it (the API messages stay in main). */
export const TranscriptEntry = z.discriminatedUnion('role', [
  /** `attachments`: absent in messages without any (and in every message stored before attachments existed). */
  z.object({ role: z.literal('user'), text: z.string(), at: z.number(), attachments: z.array(AttachmentRef).optional() }),
  z.object({
    role: z.literal('assistant'),
    text: z.string(),
    at: z.number(),
    stopped: z.boolean().optional(),
    error: z.object({ code: ChatErrorCode, message: z.string(), key: z.string().max(200).optional(), params: MessageParams.optional() }).optional(),
    tools: z.array(ToolRecord),
    /** The reply's text blocks and memory calls (by id) in the order Claude produced them; absent in replies saved before it existed. */
    parts: z.array(ReplyPart).optional(),
    usage: Usage.optional(),
    /** What Claude thought before replying (plain text, capped), when thinking was on; absent in replies saved before it was kept. */
    thinking: z.string().optional(),
  }),
]);
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;
