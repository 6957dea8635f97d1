/**
 * The chat's side of conversation versions: Regenerate, editing any sent
 * message in place, and the ‹ 2 / 3 › switch. ChatView owns the turn in
 * progress; this hook starts version turns through it, keeps the message
 * being edited (per conversation, so a tab switch or opening another
 * conversation loses nothing), and settles a version turn when it is done.
 */
import { useMemo, useRef, useState, type RefObject } from 'react';
import type { AttachmentRef } from '../../../electron/shared/chat';
import type { Conversation } from '../../../electron/shared/ipc';
import { announce } from '../../components/Announcer';
import { call, messageOf } from '../../lib/api';
import type { Live } from './live';
import { focusSwitch } from './VersionSwitch';
import { decorate, keptWhileStreaming, versionCount, type EntryActions } from './versions';

/** The message being edited in a conversation: its whole-transcript index, and the text so far. */
export interface Editing {
  entry: number;
  text: string;
}

type TurnStart = Pick<Live, 'conversationId' | 'userText' | 'version'>;

export interface VersionsDeps {
  convRef: RefObject<Conversation | undefined>;
  liveRef: RefObject<Live | undefined>;
  input: RefObject<HTMLTextAreaElement | null>;
  /** Starts a turn with `begin` and follows it; false when it was refused (ChatView has shown why). */
  startTurn: (begin: () => Promise<{ turnId: string }>, turn: TurnStart) => Promise<boolean>;
  /** Reloads the open conversation `id` as shown (same first entry) and shows it. */
  reload: (id: string) => Promise<Conversation>;
  /** Shows an error beside the transcript. */
  fail: (code: string, message: string) => void;
  /** What the message being sent carries: shown with it while the reply streams. */
  setSentFiles: (files: AttachmentRef[]) => void;
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

const EDITOR = 'textarea[aria-label="Your edit"]';
const editButton = (entry: number) => `[data-entry="${entry}"] button[aria-label="Edit message"]`;

export function useVersions(deps: VersionsDeps) {
  // One open editor per conversation: opening another conversation's never replaces what was typed in this one's.
  const [edits, setEdits] = useState<Readonly<Record<string, Editing>>>({});
  const openId = deps.convRef.current?.id;
  const editing = openId === undefined ? undefined : edits[openId];
  const editsRef = useRef(edits);
  editsRef.current = edits;
  /** Sets (or with undefined closes) conversation `id`'s editor; `now` gets what is there, to decide from. */
  const setEdit = (id: string, next: (now: Editing | undefined) => Editing | undefined) =>
    setEdits((all) => {
      const { [id]: now, ...rest } = all;
      const value = next(now);
      return value ? { ...rest, [id]: value } : rest;
    });
  const latest = useRef(deps);
  latest.current = deps;
  /** The version turn whose reply failed: Retry makes that version again rather than taking the exchange back. */
  const failed = useRef<Live['version'] | undefined>(undefined);

  /** The saved message at whole index `entry` of the open conversation, if it is loaded. */
  const messageAt = (entry: number) => {
    const c = latest.current.convRef.current;
    const e = c?.transcript[entry - (c.earlier ?? 0)];
    return c && e?.role === 'user' ? { c, e } : undefined;
  };
  const busy = () => {
    if (!latest.current.liveRef.current) return false;
    latest.current.fail('busy', 'Claude is still answering (in this or another conversation). Wait for the reply, or stop it, then try again.');
    return true;
  };

  const actions = useMemo((): EntryActions & { retry(lastUser: number | undefined): boolean } => {
    const regenerate = (entry: number) => {
      const at = messageAt(entry);
      if (!at || busy()) return;
      const { startTurn, input, setSentFiles } = latest.current;
      failed.current = undefined;
      setSentFiles([]);
      // The button goes with the reply it was on: focus waits in the message box (Esc stops), not on the page.
      input.current?.focus();
      const version = { entry, by: 'regenerate' as const, countBefore: versionCount(at.c.versions, entry) };
      // Refused at once (a message stored before versions existed…): Retry asks again rather than taking anything back.
      void startTurn(() => call('chatRegenerate', { id: at.c.id, entry }), { conversationId: at.c.id, userText: '', version }).then((started) => void (started || (failed.current = version)));
    };
    const sendEdit = () => {
      const id = latest.current.convRef.current?.id;
      const e = id === undefined ? undefined : editsRef.current[id];
      const at = e && messageAt(e.entry);
      if (!e || !at || busy()) return;
      const { startTurn, input, setSentFiles } = latest.current;
      failed.current = undefined;
      setSentFiles(at.e.attachments ?? []);
      const version = { entry: e.entry, by: 'edit' as const, countBefore: versionCount(at.c.versions, e.entry) };
      void startTurn(() => call('chatSend', { id: at.c.id, text: e.text, replace: e.entry }), { conversationId: at.c.id, userText: e.text, version }).then((started) => {
        // Refused at once: the text stays in the editor, and Retry sends it again.
        if (!started) return void (failed.current = version);
        // Sent: the editor's text is the new version now. If main refuses the turn before sending, `settle` gives it back.
        setEdit(at.c.id, (now) => (now === e ? undefined : now));
        input.current?.focus();
      });
    };
    return {
      regenerate,
      sendEdit,
      startEdit(entry) {
        const at = messageAt(entry);
        if (!at || latest.current.liveRef.current) return;
        // One message of a conversation is edited at a time; what is typed in it is never replaced by another message's text.
        setEdit(at.c.id, (now) => now ?? { entry, text: at.e.text });
        focusLater(EDITOR);
      },
      editText(text) {
        const id = latest.current.convRef.current?.id;
        if (id !== undefined) setEdit(id, (e) => (e ? { ...e, text } : e));
      },
      cancelEdit() {
        const id = latest.current.convRef.current?.id;
        const e = id === undefined ? undefined : editsRef.current[id];
        if (id === undefined || !e) return;
        setEdit(id, () => undefined);
        focusLater(editButton(e.entry));
      },
      showVersion(entry, version, pressed) {
        const c = latest.current.convRef.current;
        if (!c || busy()) return;
        const count = versionCount(c.versions, entry);
        void call('chatShowVersion', { id: c.id, entry, version })
          .then(() => latest.current.reload(c.id))
          .then(
            () => {
              announce(`Version ${version + 1} of ${count}.`);
              focusSwitch(entry, version, pressed);
            },
            (err: unknown) => latest.current.fail('version', messageOf(err)),
          );
      },
      retry(lastUser) {
        const f = failed.current;
        const c = latest.current.convRef.current;
        const open = c && editsRef.current[c.id];
        if (f?.by === 'edit' && open?.entry === f.entry) return sendEdit(), true;
        if (f) return regenerate(f.entry), true;
        // The last message has versions, so it cannot be taken back: ask for a new reply to it instead.
        if (lastUser !== undefined && c?.versions?.some((v) => v.entry >= lastUser)) return regenerate(lastUser), true;
        return false;
      },
    };
  }, []);

  /** A turn is done and `c` is its conversation as saved: a refused edit goes back into its editor. */
  const settle = (live: Live, c: Conversation, failedTurn: boolean) => {
    const v = live.version;
    failed.current = failedTurn ? v : undefined;
    if (!v) return;
    const sent = versionCount(c.versions, v.entry) > v.countBefore;
    if (sent || v.by !== 'edit') return;
    // Not sent (no key, too large…): main showed the earlier version again; the new text waits in the editor.
    setEdit(live.conversationId, (now) => now ?? { entry: v.entry, text: live.userText });
    focusLater(EDITOR);
  };

  return { editing, actions, settle };
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
