/**
 * The chat's turns, as a person drives them: send a message, follow Claude's
 * reply as its events come, stop it, carry on after the round limit, and
 * Retry. What the turn looks like lives in `turn-state.ts` (a pure reducer);
 * this hook does the talking to main and dispatches what it hears.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore, type RefObject } from 'react';
import type { AttachmentRef } from '../../../electron/shared/chat';
import type { EventPayload } from '../../../electron/shared/ipc';
import { call, messageOf, on } from '../../lib/api';
import type { AttachmentsState } from './Attachments';
import { frameBatcher, type Live } from './live';
import { reloadRange, sizeOf, type useOpenConversation } from './use-open-conversation';
import { versionCount } from './versions';
import { createTurnStore, retryPlan, type Failure, type TurnStart, type TurnState, type TurnStore } from './turn-state';

type ChatEventPayload = EventPayload<'chatEvent'>;
type OpenConversation = ReturnType<typeof useOpenConversation>;
/** What starting a version turn needs to say of it (the turn's id comes from main). */
export type VersionTurn = Omit<TurnStart, 'turnId' | 'continued'>;

/** The turn store of one chat view, and its state as of this render. */
export function useTurnStore(): [TurnStore, TurnState] {
  const [store] = useState(() => createTurnStore());
  return [store, useSyncExternalStore(store.subscribe, store.get)];
}

export interface TurnDeps {
  store: TurnStore;
  open: OpenConversation;
  attachments: AttachmentsState;
  input: RefObject<HTMLTextAreaElement | null>;
  refreshList: () => unknown;
  /** A version turn ended: focus goes to its editor if its edit came back (use-versions.ts). */
  onVersionEnded: (turn: Live, sent: boolean) => void;
}

export function useTurn(deps: TurnDeps) {
  const { store } = deps;
  const latest = useRef(deps);
  latest.current = deps;
  const dispatch = store.dispatch;
  const fail = useCallback((code: string, message: string, say?: Failure['say']) => dispatch({ type: 'failed', failure: { code, message, ...(say ? { say } : {}) } }), [dispatch]);
  // Streamed events reach React once per animation frame, however many arrive in between.
  const [batch] = useState(() => frameBatcher<ChatEventPayload>((items) => dispatch({ type: 'events', turnId: items[0]!.turnId, events: items.map((p) => p.event) })));
  /** The turn whose conversation was made for its message: if nothing of it is saved, the empty conversation goes again. */
  const madeFor = useRef<{ turnId: string; id: string } | undefined>(undefined);
  // Events can arrive before main has answered with the turn's id: held until it has.
  const early = useRef<ChatEventPayload[] | undefined>(undefined);

  /** The end of turn `turnId`: its conversation as saved is shown, and what was not sent comes back. */
  const ended = useCallback(
    async (turnId: string, conversationId: string) => {
      batch.flush();
      const turn = store.get().live!;
      const { convRef, forget, showIfOpen } = latest.current.open;
      const made = madeFor.current?.turnId === turnId;
      madeFor.current = undefined;
      const shown = convRef.current?.id === conversationId ? convRef.current : undefined;
      const c = await call('chatGet', { id: conversationId, ...reloadRange(shown) });
      if (made && c.transcript.length === 0) {
        // The first message of a new conversation failed before anything was saved: leave no empty conversation behind.
        await call('chatDelete', { id: c.id }).catch(() => undefined);
        forget(c.id);
        dispatch({ type: 'ended', turnId, giveBack: turn.userText });
        return void latest.current.refreshList();
      }
      // Shown unless the user opened another conversation meanwhile (that one stays open).
      const before = convRef.current;
      // Nothing was saved: the message never went out, so give it back to the box (an edit: to its editor).
      const unsent = showIfOpen(c) && before !== undefined && !turn.version && sizeOf(c) === sizeOf(before);
      if (unsent) {
        const files = store.get().sentFiles;
        latest.current.attachments.setPending((p) => (p.length ? p : files));
      }
      const v = turn.version;
      const versionSent = v ? versionCount(c.versions, v.entry) > v.countBefore : undefined;
      dispatch({ type: 'ended', turnId, giveBack: unsent ? turn.userText : undefined, ...(versionSent === undefined ? {} : { versionSent }) });
      if (versionSent !== undefined) latest.current.onVersionEnded(turn, versionSent);
      void latest.current.refreshList();
    },
    [batch, dispatch, store],
  );

  /** One event of the turn in progress. */
  const handle = useCallback(
    (payload: ChatEventPayload) => {
      const { turnId, conversationId, event } = payload;
      if (store.get().live?.turnId !== turnId) return;
      if (event.type === 'done') return void ended(turnId, conversationId);
      if (event.type === 'error') return dispatch({ type: 'turnError', turnId, code: event.code, message: event.message });
      batch.push(payload);
    },
    [batch, dispatch, ended, store],
  );
  useEffect(
    () =>
      on('chatEvent', (payload) => {
        if (store.get().live?.turnId === payload.turnId) handle(payload);
        else early.current?.push(payload);
      }),
    [handle, store],
  );

  /** Shows the turn just started and hands it the events that came before its id was known. */
  const follow = (turn: TurnStart, sentFiles: AttachmentRef[], sent = false) => {
    batch.clear();
    dispatch({ type: 'started', turn, sentFiles, sent });
    for (const payload of (early.current ?? []).splice(0)) handle(payload);
    early.current = undefined;
  };
  /** Asks main for a turn with `begin` and follows it; false (the error shown) when main refused it. */
  const begin = async (ask: () => Promise<{ turnId: string }>, then: (turnId: string) => void, version?: Live['version']): Promise<boolean> => {
    dispatch({ type: 'clearedFailure' });
    try {
      early.current = [];
      then((await ask()).turnId);
      return true;
    } catch (err) {
      early.current = undefined;
      dispatch({ type: 'refused', failure: { code: 'send', message: messageOf(err) }, ...(version ? { version } : {}) });
      return false;
    }
  };

  /**
   * A message on its way to main (its conversation being made, main not yet answered): a second Enter or click
   * meanwhile is the same message and sends nothing. The ref decides; the state shows Send as not available.
   */
  const sendingNow = useRef(false);
  const [sending, setSending] = useState(false);
  /** Sends `text` with the waiting attachments (or `withFiles`, when they were just given back and not yet shown). */
  const send = async (text: string, withFiles?: AttachmentRef[]) => {
    const { attachments } = latest.current;
    // Words, files or both: an image alone is a message too.
    if (!text.trim() && !(withFiles ?? attachments.pending).length) return;
    if (store.get().live) return fail('busy', '', 'busySend');
    if (sendingNow.current) return;
    sendingNow.current = true;
    setSending(true);
    try {
      await sendNow(text, withFiles);
    } finally {
      sendingNow.current = false;
      setSending(false);
    }
  };
  const sendNow = async (text: string, withFiles?: AttachmentRef[]) => {
    const { attachments, open } = latest.current;
    dispatch({ type: 'clearedFailure' });
    let target: Awaited<ReturnType<OpenConversation['target']>>;
    try {
      const model = store.get().firstModel;
      target = await open.target(model ? { model } : undefined);
    } catch (err) {
      return fail('send', messageOf(err));
    }
    const files = withFiles ?? attachments.pending;
    await begin(
      () => call('chatSend', { id: target.id, text, ...(files.length ? { attachments: files.map((f) => f.id) } : {}) }),
      (turnId) => {
        // A conversation made for attachments stays if the message fails: main still holds them for it.
        if (target.transcript.length === 0 && !files.length) madeFor.current = { turnId, id: target.id };
        attachments.setPending([]);
        attachments.setErrors([]);
        follow({ turnId, conversationId: target.id, userText: text }, files, true);
      },
    );
  };

  /** Runs the next rounds of a reply the round limit stopped, on the same conversation. */
  const continueTurn = async () => {
    const id = latest.current.open.convRef.current?.id;
    if (!id || store.get().live) return;
    // The button goes while Claude carries on: focus waits in the message box (Esc stops), not on the page.
    latest.current.input.current?.focus();
    await begin(
      () => call('chatContinue', { id }),
      (turnId) => follow({ turnId, conversationId: id, userText: '', continued: true }, []),
    );
  };

  /** Starts a new version's turn with `ask` (use-versions.ts); false when main refused it, and Retry asks again. */
  const startVersion = (ask: () => Promise<{ turnId: string }>, turn: VersionTurn, sentFiles: AttachmentRef[]) =>
    begin(ask, (turnId) => follow({ turnId, ...turn }, sentFiles), turn.version);

  const stop = useCallback(() => {
    const l = store.get().live;
    if (l) void call('chatStop', { turnId: l.turnId });
  }, [store]);

  /** Takes back the last exchange of a failed reply (for Retry) and sends it again; its attachments wait again as chips. */
  const rewindAndSend = async () => {
    const { open, attachments } = latest.current;
    const conv = open.convRef.current;
    if (!conv) return;
    let back: { text: string; attachments?: AttachmentRef[] | undefined };
    try {
      back = await call('chatRewind', { id: conv.id });
      await open.open(conv.id);
      dispatch({ type: 'clearedFailure' });
      attachments.restore(conv.id, back.attachments ?? []);
    } catch (err) {
      return fail('rewind', messageOf(err));
    }
    // The user opened another conversation meanwhile: the words wait in the box (the files with their own conversation), never sent elsewhere.
    if (open.convRef.current?.id !== conv.id) return dispatch({ type: 'gaveBack', text: back.text });
    await send(back.text, back.attachments ?? []);
  };

  /**
   * Retry (see retryPlan): `lastUser` is the open conversation's last message's
   * whole index; `versions` makes a version again.
   */
  const retry = async (lastUser: number | undefined, versions: { sendEdit(): void; regenerate(entry: number): void }) => {
    const plan = retryPlan(store.get(), latest.current.open.convRef.current, lastUser, latest.current.attachments.pending.length);
    if (plan.kind === 'send') return send(store.get().draft);
    if (plan.kind === 'sendEdit') return versions.sendEdit();
    if (plan.kind === 'regenerate') return versions.regenerate(plan.entry);
    await rewindAndSend();
  };

  /** Sets the open conversation's model (null: back to the one in Settings), or the first one's when none is open yet. */
  const pickModel = async (model: string | null) => {
    const { convRef, update } = latest.current.open;
    const c = convRef.current;
    if (!c) return dispatch({ type: 'pickedFirstModel', model: model ?? undefined });
    try {
      await call('chatSetModel', { id: c.id, model });
      update(c.id, (now) => {
        const { model: _before, ...rest } = now;
        return model ? { ...rest, model } : rest;
      });
    } catch (err) {
      fail('model', messageOf(err));
    }
  };

  /** The user answered approval `callId` of turn `turnId`: main hears it, then the card goes. */
  const decide = useCallback(
    async (turnId: string, callId: string, allow: boolean) => {
      await call('chatApprove', { turnId, callId, allow }).catch(() => undefined);
      dispatch({ type: 'decided', turnId, callId });
    },
    [dispatch],
  );

  return { send, sending, continueTurn, startVersion, stop, retry, pickModel, fail, decide };
}
