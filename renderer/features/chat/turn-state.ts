/**
 * The chat's turn state, without React: the reply being streamed (with its
 * approvals), the error shown under the transcript and what Retry does about
 * it, the unsent message, the model picked before a conversation exists, and
 * the message being edited in each conversation. Every change is an action
 * through `turnReducer`, a pure function; `createStore` holds the state so
 * that event handlers and awaited calls read the current one between renders
 * (a reply's events arrive faster than React renders).
 */
import type { AttachmentRef, ChatEvent } from '../../../electron/shared/chat';
import type { Conversation } from '../../../electron/shared/ipc-values';
import { applyEvent, type Live } from './live';

/** Failures the window itself says (main's come with their message): catalog keys, said in the language shown. */
export const FAILURE_KEYS = { busySend: 'failure.busySend', busyRetry: 'failure.busyRetry', keySet: 'failure.keySet' } as const;
/** An error under the transcript: main's `message`, or one of the window's own (`say`). */
export type Failure = { code: string; message: string; say?: keyof typeof FAILURE_KEYS };

/** The message being edited in a conversation: its whole-transcript index, and the text so far. */
export interface Editing {
  entry: number;
  text: string;
}

/** What a turn is started with; the rest of `Live` fills in as its events come. */
export type TurnStart = Pick<Live, 'turnId' | 'conversationId' | 'userText' | 'continued' | 'version'>;

export interface TurnState {
  /** The turn in progress and its reply so far; undefined when no turn runs. */
  live?: Live | undefined;
  /** The turn in progress reported an error (its reply failed, or it was refused before sending). */
  liveFailed: boolean;
  /** What went with the message being answered: shown in it, and back as chips if it was not sent. */
  sentFiles: AttachmentRef[];
  /** The error shown under the transcript. */
  failure?: Failure | undefined;
  /** The unsent message in the box. */
  draft: string;
  /** The model picked before there is a conversation to hold it: the conversation made for the first message starts on it. */
  firstModel?: string | undefined;
  /** One open editor per conversation, by conversation id: opening another conversation's never replaces what was typed in this one's. */
  edits: Readonly<Record<string, Editing>>;
  /** The version turn that failed or was refused: Retry makes that version again rather than taking the exchange back. */
  failedVersion?: Live['version'];
}

export const initialTurnState: TurnState = { liveFailed: false, sentFiles: [], draft: '', edits: {} };

export type TurnAction =
  /** The user typed in the message box. */
  | { type: 'typed'; text: string }
  /** Words that did not go out come back to the box, unless something was typed there since. */
  | { type: 'gaveBack'; text: string }
  | { type: 'failed'; failure: Failure }
  | { type: 'clearedFailure' }
  | { type: 'pickedFirstModel'; model: string | undefined }
  /** Main accepted a turn: its reply streams from now on. `sent` empties the box (its words went with it). */
  | { type: 'started'; turn: TurnStart; sentFiles: AttachmentRef[]; sent?: boolean }
  /** Main refused to start a turn: the error, and for a version, what Retry makes again. */
  | { type: 'refused'; failure: Failure; version?: Live['version'] }
  /** Streamed events of turn `turnId`, in the order they came. */
  | { type: 'events'; turnId: string; events: ChatEvent[] }
  /** Turn `turnId` reported an error. */
  | { type: 'turnError'; turnId: string; code: string; message: string }
  /** An approval of turn `turnId` was answered. */
  | { type: 'decided'; turnId: string; callId: string }
  /**
   * Turn `turnId` is over and its conversation is saved. `giveBack`: its words
   * never went out (they return to the box). `versionSent`: for a version
   * turn, whether the conversation has the new version (an edit that was not
   * goes back into its editor).
   */
  | { type: 'ended'; turnId: string; giveBack?: string | undefined; versionSent?: boolean }
  /** Opens conversation `id`'s editor on `edit`, unless one is open there already (what is typed in it is never replaced). */
  | { type: 'editOpened'; id: string; edit: Editing }
  | { type: 'editTyped'; id: string; text: string }
  | { type: 'editClosed'; id: string }
  /** The edit `edit` of conversation `id` was sent: its editor closes, unless it was changed or replaced meanwhile. */
  | { type: 'editSent'; id: string; edit: Editing }
  /** Editors kept across a lock come back, each only where none is open. */
  | { type: 'editsRestored'; edits: Readonly<Record<string, Editing>> };

/** A stop the user asked for is shown in the transcript ("Stopped."), not as an error; so is the round limit, with Continue. */
const shownInTranscript = (code: string) => code === 'cancelled' || code === 'max_rounds';

function withEdit(edits: TurnState['edits'], id: string, next: Editing | undefined): TurnState['edits'] {
  const { [id]: _now, ...rest } = edits;
  return next ? { ...rest, [id]: next } : rest;
}

/** The state after `a`. Returns `s` itself when nothing changes, so a store can skip telling anyone. */
export function turnReducer(s: TurnState, a: TurnAction): TurnState {
  const ours = (turnId: string) => s.live?.turnId === turnId;
  switch (a.type) {
    case 'typed':
      return a.text === s.draft ? s : { ...s, draft: a.text };
    case 'gaveBack':
      return s.draft || !a.text ? s : { ...s, draft: a.text };
    case 'failed':
      return { ...s, failure: a.failure };
    case 'clearedFailure':
      return s.failure ? { ...s, failure: undefined } : s;
    case 'pickedFirstModel':
      return { ...s, firstModel: a.model };
    case 'started':
      return {
        ...s,
        live: { ...a.turn, text: '', parts: [], thinking: '', tools: [], approvals: [] },
        liveFailed: false,
        sentFiles: a.sentFiles,
        failedVersion: undefined,
        ...(a.sent ? { draft: '' } : {}),
      };
    case 'refused':
      return { ...s, failure: a.failure, ...(a.version ? { failedVersion: a.version } : {}) };
    case 'events':
      return s.live && ours(a.turnId) && a.events.length ? { ...s, live: a.events.reduce(applyEvent, s.live) } : s;
    case 'turnError':
      if (!ours(a.turnId) || shownInTranscript(a.code)) return s;
      return { ...s, liveFailed: true, failure: { code: a.code, message: a.message } };
    case 'decided':
      return s.live && ours(a.turnId) ? { ...s, live: { ...s.live, approvals: s.live.approvals.filter((x) => x.id !== a.callId) } } : s;
    case 'ended': {
      const live = s.live;
      if (!live || !ours(a.turnId)) return s;
      const v = live.version;
      let edits = s.edits;
      // An edit main did not send (no key, too large…): the conversation shows the earlier version; the new text waits in the editor.
      if (v?.by === 'edit' && a.versionSent === false && !edits[live.conversationId]) edits = withEdit(edits, live.conversationId, { entry: v.entry, text: live.userText });
      return { ...s, live: undefined, liveFailed: false, failedVersion: s.liveFailed ? v : undefined, edits, draft: s.draft || (a.giveBack ?? '') };
    }
    case 'editOpened':
      return s.edits[a.id] ? s : { ...s, edits: withEdit(s.edits, a.id, a.edit) };
    case 'editTyped': {
      const e = s.edits[a.id];
      return e && e.text !== a.text ? { ...s, edits: withEdit(s.edits, a.id, { ...e, text: a.text }) } : s;
    }
    case 'editClosed':
      return s.edits[a.id] ? { ...s, edits: withEdit(s.edits, a.id, undefined) } : s;
    case 'editSent':
      return s.edits[a.id] === a.edit ? { ...s, edits: withEdit(s.edits, a.id, undefined) } : s;
    case 'editsRestored': {
      let edits = s.edits;
      for (const [id, e] of Object.entries(a.edits)) if (!edits[id]) edits = withEdit(edits, id, e);
      return edits === s.edits ? s : { ...s, edits };
    }
  }
}

/** What Retry does: send what is in the box, send an edit again, make a version again, or take the last exchange back and send it again. */
export type RetryPlan = { kind: 'send' } | { kind: 'sendEdit' } | { kind: 'regenerate'; entry: number } | { kind: 'rewind' };

/**
 * What Retry does in state `s` with the open conversation `c` (`lastUser`: the
 * whole index of its last message; `pendingFiles`: attachments waiting in the
 * box). A message that never went out is in the box: it is sent. A version's
 * turn failed: that version is made again (an edit from its open editor). The
 * last message has versions, so it cannot be taken back: a new reply to it is
 * asked. Otherwise the exchange with the broken reply is taken back and sent again.
 */
export function retryPlan(s: TurnState, c: Pick<Conversation, 'id' | 'versions'> | undefined, lastUser: number | undefined, pendingFiles: number): RetryPlan {
  if (s.draft.trim() || pendingFiles > 0) return { kind: 'send' };
  const f = s.failedVersion;
  const open = c && s.edits[c.id];
  if (f?.by === 'edit' && open?.entry === f.entry) return { kind: 'sendEdit' };
  if (f) return { kind: 'regenerate', entry: f.entry };
  if (lastUser !== undefined && c?.versions?.some((v) => v.entry >= lastUser)) return { kind: 'regenerate', entry: lastUser };
  return { kind: 'rewind' };
}

/** Retry is offered under an error: no turn runs, there is something to send again, and the error is not one of a version that could not be shown. */
export function retryOffered(s: TurnState, hasLastMessage: boolean, pendingFiles: number): boolean {
  const code = s.failure?.code;
  return !s.live && (hasLastMessage || s.draft.trim() !== '' || pendingFiles > 0) && code !== 'cancelled' && code !== 'version';
}

/** A store for one reducer: `get` is current at once after `dispatch`; `subscribe` hears each change (for useSyncExternalStore). */
export interface Store<S, A> {
  get(): S;
  dispatch(a: A): void;
  subscribe(listener: () => void): () => void;
}

export function createStore<S, A>(reducer: (s: S, a: A) => S, initial: S): Store<S, A> {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    dispatch(a) {
      const next = reducer(state, a);
      if (next === state) return;
      state = next;
      for (const l of [...listeners]) l();
    },
    subscribe(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
  };
}

export type TurnStore = Store<TurnState, TurnAction>;
export const createTurnStore = (initial: TurnState = initialTurnState): TurnStore => createStore(turnReducer, initial);
