/**
 * A stored conversation as a value: its shape and the pure changes made to it
 * (flags, model, taking back the last exchange, the title and the index entry),
 * shared by the vault's conversations and the temporary chats kept in memory.
 */
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ConversationSummary, TranscriptEntry } from '../../shared/chat';
import { VaultError } from '../vault/types';
import type { Fork } from './branches';
import { m } from '../i18n/message';

export const UNTITLED = 'New conversation';

export interface StoredConversation {
  id: string;
  title: string;
  created: number;
  updated: number;
  /** The API history exactly as sent (compaction blocks included), so it can be sent back unchanged. */
  messages: BetaMessageParam[];
  /** What the UI shows. */
  transcript: TranscriptEntry[];
  /** For each saved exchange, the index in `messages` of the message holding the user's words. */
  turnStarts?: number[];
  /** The project it belongs to; absent (stored before projects) means the first project. */
  project?: string;
  /** A temporary chat: kept in memory only, never stored, and its memory tool cannot write. */
  temporary?: boolean;
  /** The model picked for this conversation beside the message box; absent: the one in Settings. */
  model?: string;
  /** Shown above the dated groups; absent (and in conversations stored before it existed) means not pinned. */
  pinned?: boolean;
  /** Out of the list, in the Archived view; absent means not archived. */
  archived?: boolean;
  /** Where a reply was regenerated or a message edited: the other versions (branches.ts); absent when there are none. */
  forks?: Fork[];
}

/** What `setFlags` changes: each given flag set or cleared, the others left as they are. */
export interface ConversationFlags {
  pinned?: boolean | undefined;
  archived?: boolean | undefined;
}

/** `c` with `flags` applied; a cleared flag is removed, so the stored head looks as it did before flags existed. */
export function withFlags<C extends { pinned?: boolean; archived?: boolean }>(c: C, flags: ConversationFlags): C {
  const next = { ...c };
  for (const key of ['pinned', 'archived'] as const) {
    const value = flags[key];
    if (value === true) next[key] = true;
    else if (value === false) delete next[key];
  }
  return next;
}

/** The index entry of a conversation (its project only when it is not the first, as stored before projects). */
export function summaryOf(c: StoredConversation): ConversationSummary {
  return { id: c.id, title: c.title, created: c.created, updated: c.updated, messageCount: c.transcript.length, ...(c.project ? { project: c.project } : {}), ...flagsOf(c) };
}

/** The flags that are set (only `true` counts: a head from an older version has neither). */
export function flagsOf(m: { pinned?: unknown; archived?: unknown }): { pinned?: true; archived?: true } {
  return { ...(m.pinned === true ? { pinned: true as const } : {}), ...(m.archived === true ? { archived: true as const } : {}) };
}

/** `c` set to `model`, or back to the model in Settings when it is undefined. */
export function withModel(c: StoredConversation, model: string | undefined): StoredConversation {
  const { model: _before, ...rest } = c;
  return model ? { ...rest, model } : rest;
}

/** Taking back an exchange that has other versions would leave them named by nothing: it is edited in place instead. */
export function refuseRewindOfVersions(c: StoredConversation): void {
  const last = c.transcript.filter((e) => e.role === 'user').length - 1;
  if (c.forks?.some((f) => f.at >= last)) throw new VaultError('INVALID', m('errors:versions.cannotTakeBack'));
}

/** The conversation without its last exchange, and what the user said in it; NOT_FOUND if there is none. */
export function withoutLastExchange(c: StoredConversation): { text: string; rest: StoredConversation } {
  const starts = [...(c.turnStarts ?? [])];
  const start = starts.pop();
  const userAt = c.transcript.map((e) => e.role).lastIndexOf('user');
  if (start === undefined || userAt < 0) throw new VaultError('NOT_FOUND', m('errors:conversation.nothingToTakeBack'));
  return { text: c.transcript[userAt]!.text, rest: { ...c, updated: Date.now(), messages: c.messages.slice(0, start), transcript: c.transcript.slice(0, userAt), turnStarts: starts } };
}

/** A title from the first thing the user said: its first line, cut at a word near 60 characters. */
export function titleFrom(text: string): string {
  const line = text.split('\n').find((l) => l.trim())?.trim() ?? UNTITLED;
  if (line.length <= 60) return line;
  const cut = line.slice(0, 60);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 30 ? cut.lastIndexOf(' ') : 60)}…`;
}
