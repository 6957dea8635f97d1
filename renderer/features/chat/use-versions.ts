/**
 * The chat's side of conversation versions: Regenerate, editing any sent
 * message in place, and the ‹ 2 / 3 › switch. The turn store (turn-state.ts)
 * holds the message being edited, per conversation, so a tab switch or
 * opening another conversation loses nothing; these actions change it and
 * start version turns through use-turn.ts.
 */
import { useEffect, useMemo, useRef, type RefObject } from 'react';
import type { AttachmentRef } from '../../../electron/shared/chat';
import type { Conversation } from '../../../electron/shared/ipc-values';
import type { EditDraft } from '../../../electron/shared/drafts';
import { announce } from '../../components/Announcer';
import { call, messageOf } from '../../lib/api';
import { saveDraft } from '../../lib/drafts';
import { formatNumber } from '../../lib/format';
import { i18n } from '../../lib/i18n';
import type { Live } from './live';
import type { Editing, Failure, TurnState, TurnStore } from './turn-state';
import type { VersionTurn } from './use-turn';
import { focusSwitch } from './VersionSwitch';
import { decorate, keptWhileStreaming, versionCount, type EntryActions } from './versions';

export interface VersionsDeps {
  store: TurnStore;
  convRef: RefObject<Conversation | undefined>;
  input: RefObject<HTMLTextAreaElement | null>;
  /** Starts a version's turn with `ask` and follows it; false when it was refused (the error is shown). */
  startVersion: (ask: () => Promise<{ turnId: string }>, turn: VersionTurn, sentFiles: AttachmentRef[]) => Promise<boolean>;
  /** Reloads the open conversation `id` as shown (same first entry) and shows it. */
  reload: (id: string) => Promise<Conversation>;
  /** Shows an error beside the transcript. */
  fail: (code: string, message: string, say?: Failure['say']) => void;
}

/**
 * Focuses `selector` once it is in the page, with the caret at the end of its
 * text when it is a text box. If it already has focus (the user got there
 * first and may have selected text to type over), it is left as it is.
 */
function focusLater(selector: string, frames = 120): void {
  const el = document.querySelector<HTMLElement>(selector);
  if (el && el.offsetParent !== null) {
    if (document.activeElement === el) return;
    el.focus();
    if (el instanceof HTMLTextAreaElement) el.setSelectionRange(el.value.length, el.value.length);
    return;
  }
  if (frames > 0) requestAnimationFrame(() => focusLater(selector, frames - 1));
}

// Found by class, not by name: names are in the window's language.
const EDITOR = 'textarea.edit-message-input';
const editButton = (entry: number) => `[data-entry="${entry}"] button.edit-button`;

/** A version turn is over: an edit main did not send is back in its editor (turn-state.ts), which takes focus. */
export function versionEnded(turn: Live, sent: boolean): void {
  if (!sent && turn.version?.by === 'edit') focusLater(EDITOR);
}

/** The actions of the saved messages' buttons (stable: memoised messages keep), over the turn store. */
export function useVersions(deps: VersionsDeps): EntryActions {
  const latest = useRef(deps);
  latest.current = deps;

  return useMemo((): EntryActions => {
    const { store } = latest.current;
    const openId = () => latest.current.convRef.current?.id;
    /** The saved message at whole index `entry` of the open conversation, if it is loaded. */
    const messageAt = (entry: number) => {
      const c = latest.current.convRef.current;
      const e = c?.transcript[entry - (c.earlier ?? 0)];
      return c && e?.role === 'user' ? { c, e } : undefined;
    };
    const busy = () => {
      if (!store.get().live) return false;
      latest.current.fail('busy', '', 'busyRetry');
      return true;
    };
    const regenerate = (entry: number) => {
      const at = messageAt(entry);
      if (!at || busy()) return;
      // The button goes with the reply it was on: focus waits in the message box (Esc stops), not on the page.
      latest.current.input.current?.focus();
      const version = { entry, by: 'regenerate' as const, countBefore: versionCount(at.c.versions, entry) };
      // Refused at once (a message stored before versions existed…): Retry asks again rather than taking anything back.
      void latest.current.startVersion(() => call('chatRegenerate', { id: at.c.id, entry }), { conversationId: at.c.id, userText: '', version }, []);
    };
    const sendEdit = () => {
      const id = openId();
      const e = id === undefined ? undefined : store.get().edits[id];
      const at = e && messageAt(e.entry);
      if (!e || !at || busy()) return;
      const version = { entry: e.entry, by: 'edit' as const, countBefore: versionCount(at.c.versions, e.entry) };
      void latest.current.startVersion(() => call('chatSend', { id: at.c.id, text: e.text, replace: e.entry }), { conversationId: at.c.id, userText: e.text, version }, at.e.attachments ?? []).then((started) => {
        // Refused at once: the text stays in the editor, and Retry sends it again.
        if (!started) return;
        // Sent: the editor's text is the new version now. If main refuses the turn before sending, it comes back (turn-state.ts).
        store.dispatch({ type: 'editSent', id: at.c.id, edit: e });
        latest.current.input.current?.focus();
      });
    };
    return {
      regenerate,
      sendEdit,
      startEdit(entry) {
        const at = messageAt(entry);
        if (!at || store.get().live) return;
        // An editor kept across a lock whose message is not on screen (not loaded, or gone) gives way to this one.
        const open = store.get().edits[at.c.id];
        if (open && !messageAt(open.entry)) store.dispatch({ type: 'editClosed', id: at.c.id });
        // One message of a conversation is edited at a time; what is typed in it is never replaced by another message's text.
        store.dispatch({ type: 'editOpened', id: at.c.id, edit: { entry, text: at.e.text } });
        focusLater(EDITOR);
      },
      editText(text) {
        const id = openId();
        if (id !== undefined) store.dispatch({ type: 'editTyped', id, text });
      },
      cancelEdit() {
        const id = openId();
        const e = id === undefined ? undefined : store.get().edits[id];
        if (id === undefined || !e) return;
        store.dispatch({ type: 'editClosed', id });
        focusLater(editButton(e.entry));
      },
      showVersion(entry, version, pressed, to) {
        const c = latest.current.convRef.current;
        if (!c || busy()) return;
        void call('chatShowVersion', { id: c.id, entry, version })
          .then(() => latest.current.reload(c.id))
          .then(
            () => {
              announce(i18n.t('chat:versions.announced', { shown: formatNumber(to.shown + 1), total: formatNumber(to.count) }));
              focusSwitch(entry, to.of, to.shown, pressed);
            },
            (err: unknown) => latest.current.fail('version', messageOf(err)),
          );
      },
    };
  }, []);
}

/** The open edit of `conv`, if its message is on screen (an edit kept across a lock may name one that is not loaded). */
export function editShown(conv: Conversation | undefined, edits: TurnState['edits']): Editing | undefined {
  const e = conv && edits[conv.id];
  return e && conv.transcript[e.entry - (conv.earlier ?? 0)]?.role === 'user' ? e : undefined;
}

// The limits main checks (MAX_EDIT_DRAFTS, MAX_CHAT_DRAFT_CHARS in electron/shared/drafts.ts, which the window may only import types from).
const MAX_EDIT_DRAFTS = 10;
const MAX_EDIT_CHARS = 100_000;

/**
 * The open edits go to main as they change, so a lock keeps them (see
 * renderer/lib/drafts.ts); those a lock kept come back into their editors.
 */
export function useKeptEdits(store: TurnStore, edits: TurnState['edits'], restored: readonly EditDraft[] | undefined): void {
  useEffect(() => {
    if (restored?.length) store.dispatch({ type: 'editsRestored', edits: Object.fromEntries(restored.map((e) => [e.conversationId, { entry: e.entry, text: e.text }])) });
  }, [restored, store]);
  useEffect(() => {
    const open = Object.entries(edits).flatMap(([conversationId, e]) => (e.text.length <= MAX_EDIT_CHARS ? [{ conversationId, entry: e.entry, text: e.text }] : []));
    saveDraft('edit', open.length ? open.slice(-MAX_EDIT_DRAFTS) : null);
  }, [edits]);
}

const NO_ENTRIES: Conversation['transcript'] = [];

/**
 * What the transcript shows of `conv` and what each message offers: while a
 * new version of it streams (`turn`), what that version replaces is out of
 * view (an edit: its message on; a regeneration: the replies after it).
 */
export function useDecor(conv: Conversation | undefined, turn: Live['version'], busy: boolean, editing: Editing | undefined) {
  const transcript = conv?.transcript ?? NO_ENTRIES;
  const earlier = conv?.earlier ?? 0;
  const shownEntries = useMemo(() => (turn ? transcript.slice(0, keptWhileStreaming(transcript.length, earlier, turn)) : transcript), [transcript, turn, earlier]);
  const decor = useMemo(() => decorate(shownEntries, { earlier, versions: conv?.versions, busy, editing }), [shownEntries, earlier, conv?.versions, busy, editing]);
  return { shownEntries, decor };
}
