/**
 * Versions of a conversation as the window shows them: which saved message
 * gets Edit, which reply gets Regenerate, where the ‹ 2 / 3 › switch goes, and
 * what stays on screen while a new version streams. Main numbers messages by
 * their index in the WHOLE transcript; the window may hold only its tail
 * (`earlier` entries left out), so every index here is converted on purpose.
 */
import { createContext } from 'react';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import type { Conversation } from '../../../electron/shared/ipc-values';

export type VersionInfo = NonNullable<Conversation['versions']>[number];

/** What one saved message shows besides its text; undefined fields are left out, so equal decors compare equal. */
export interface EntryDecor {
  /** The message's index in the whole transcript (what main is told). */
  index: number;
  /** A user message: Edit is offered (no turn runs and no other message is being edited). */
  canEdit?: boolean;
  /** The text in this message's open editor: it is shown in place of the message. */
  editing?: string;
  /** The last reply of an exchange: Regenerate asks a new reply to the user message at this whole index. */
  regenerate?: number;
  /** The version switch shown here: of the message at whole index `entry`. */
  version?: SwitchDecor;
  /** A turn runs or a message is being edited: the switch is disabled (a switch would change the messages under the editor). */
  busy?: boolean;
}

/**
 * One ‹ 2 / 3 › switch: position `shown` of `count`. `of` says what it goes
 * between: the message's versions (edits) or, within one of them, its
 * replies (regenerations). `targets[p]`: the version main is asked for at
 * position p (absent: p itself).
 */
export interface SwitchDecor {
  entry: number;
  shown: number;
  count: number;
  of: 'message' | 'reply';
  targets?: readonly number[];
}

export interface DecorState {
  earlier: number;
  versions: Conversation['versions'];
  busy: boolean;
  /** The message being edited (whole index) and its text so far. */
  editing?: { entry: number; text: string } | undefined;
}

/**
 * Per entry of `transcript` (the loaded tail), its decor. Regenerate goes on
 * the reply that ends an exchange (the one followed by the next message or
 * by nothing), and only when the exchange's message is loaded. A version
 * switch made by an edit sits on the message; one made by regenerating sits
 * where Regenerate is, on the exchange's last reply (on the message, if the
 * version has no reply).
 */
export function decorate(transcript: readonly TranscriptEntry[], s: DecorState): EntryDecor[] {
  const decor: EntryDecor[] = transcript.map((e, i) => {
    const index = s.earlier + i;
    const d: EntryDecor = { index };
    if (e.role === 'user') {
      if (!s.busy && !s.editing) d.canEdit = true;
      if (s.editing?.entry === index) d.editing = s.editing.text;
    }
    if (s.busy || s.editing) d.busy = true;
    return d;
  });
  // The exchange each entry belongs to: the loaded user message before it (or itself).
  let user: number | undefined;
  const exchangeOf: Array<number | undefined> = transcript.map((e, i) => (e.role === 'user' ? (user = i) : user));
  transcript.forEach((e, i) => {
    const next = transcript[i + 1];
    const start = exchangeOf[i];
    if (e.role === 'assistant' && (!next || next.role === 'user') && start !== undefined && !s.busy) decor[i]!.regenerate = s.earlier + start;
  });
  for (const v of s.versions ?? []) {
    const at = v.entry - s.earlier;
    if (transcript[at]?.role !== 'user') continue;
    // The exchange's last reply: the entry before the next user message, if it is a reply.
    let end = at + 1;
    while (end < transcript.length && transcript[end]!.role !== 'user') end++;
    const replyAt = end - 1 > at ? end - 1 : at;
    for (const sw of switchesOf(v)) {
      const place = sw.of === 'message' ? at : replyAt;
      // A version with no reply (a crash before it): its message's own switch comes first.
      if (decor[place]!.version?.of === 'message') continue;
      decor[place]!.version = sw;
    }
  }
  return decor;
}

/**
 * The switches of one message's versions. Versions are grouped by the message
 * they begin with (`groups`, from main): the message's switch goes between
 * the groups (each shows its latest reply), the reply's between the versions
 * of the group shown. Without groups (`by` alone), one switch as `by` says.
 */
export function switchesOf(v: VersionInfo): SwitchDecor[] {
  const g = v.groups;
  if (!g || g.length !== v.count) return [{ entry: v.entry, shown: v.shown, count: v.count, of: v.by === 'edit' ? 'message' : 'reply' }];
  const group = g[v.shown]!;
  const messages = Math.max(...g) + 1;
  const members = g.flatMap((x, i) => (x === group ? [i] : []));
  const out: SwitchDecor[] = [];
  if (messages > 1) out.push({ entry: v.entry, shown: group, count: messages, of: 'message', targets: Array.from({ length: messages }, (_, k) => (k === group ? v.shown : g.lastIndexOf(k))) });
  if (members.length > 1) out.push({ entry: v.entry, shown: members.indexOf(v.shown), count: members.length, of: 'reply', targets: members });
  return out;
}

/** True when two decors would draw the same. */
export function sameDecor(a: EntryDecor | undefined, b: EntryDecor | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.index === b.index &&
    a.canEdit === b.canEdit &&
    a.editing === b.editing &&
    a.regenerate === b.regenerate &&
    a.busy === b.busy &&
    a.version?.entry === b.version?.entry &&
    a.version?.shown === b.version?.shown &&
    a.version?.count === b.version?.count &&
    a.version?.of === b.version?.of &&
    (a.version?.targets ?? []).join() === (b.version?.targets ?? []).join()
  );
}

/**
 * How many of the loaded entries stay on screen while a new version streams:
 * an edit hides its message and all after it (the new text streams in its
 * place), a regeneration keeps the message and hides the replies after it.
 */
export function keptWhileStreaming(total: number, earlier: number, version: { entry: number; by: VersionInfo['by'] }): number {
  const cut = version.entry - earlier + (version.by === 'regenerate' ? 1 : 0);
  return Math.max(0, Math.min(total, cut));
}

/** How many versions the message at whole index `entry` has (1: none besides the one shown). */
export function versionCount(versions: Conversation['versions'], entry: number): number {
  return versions?.find((v) => v.entry === entry)?.count ?? 1;
}

/** What the saved messages' buttons do; ChatView provides them, with a stable identity, so memoised messages keep. */
export interface EntryActions {
  regenerate(entry: number): void;
  startEdit(entry: number): void;
  editText(text: string): void;
  cancelEdit(): void;
  sendEdit(): void;
  /** Shows version `version` (main's numbering) of the message at `entry`; `to` is the switch pressed as it will read then. */
  showVersion(entry: number, version: number, pressed: 'previous' | 'next', to: Pick<SwitchDecor, 'of' | 'shown' | 'count'>): void;
}

const nothing = (): void => undefined;
export const EntryActionsContext = createContext<EntryActions>({ regenerate: nothing, startEdit: nothing, editText: nothing, cancelEdit: nothing, sendEdit: nothing, showVersion: nothing });
