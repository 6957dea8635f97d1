import { useCallback, useEffect, useRef, useState } from 'react';
import type { AttachmentRef, ChatEvent, ConversationSummary } from '../../../electron/shared/chat';
import type { Conversation, EventPayload } from '../../../electron/shared/ipc';
import type { ChatDraft } from '../../../electron/shared/drafts';
import { call, messageOf, on } from '../../lib/api';
import { saveDraft } from '../../lib/drafts';
import { ConversationHeader } from './ConversationHeader';
import { AttachmentConversation, useAttachments } from './Attachments';
import { Composer } from './Composer';
import { ConversationModel } from './ConversationModel';
import { Greeting } from './Greeting';
import { applyEvent, frameBatcher, type Live } from './live';
import { LiveReply } from './LiveReply';
import { Messages } from './Messages';
import { useChatRequests } from './requests';
import { Sidebar, type NewConversation } from './Sidebar';
import { ChipProject } from './ToolChip';
import { money, usageLine } from './Transcript';
import { useChatKeys, useStaleKeyNotice } from './chat-keys';
import { useDecor, useVersions } from './use-versions';
import { lastOpened, reloadRange, sizeOf, useOpenConversation } from './use-open-conversation';
import { EntryActionsContext } from './versions';

type Failure = { code: string; message: string };
type ChatEventPayload = EventPayload<'chatEvent'>;

/** Conversations with Claude: streaming replies, every memory operation as a chip, approvals, stop, retry. */
export function ChatView({
  active,
  restoredDraft,
  onOpenMemory,
  onOpenSettings,
  onProject,
  headerEnd,
}: {
  active: boolean;
  /** At the end of the conversation's header: the memory pane's toggle. */
  headerEnd?: React.ReactNode;
  restoredDraft?: ChatDraft | undefined;
  onOpenMemory: (path: string, project?: string) => void;
  onOpenSettings: () => void;
  /** Told the open conversation's project (absent: the first), for the memory pane beside the chat. */
  onProject?: (project: string) => void;
}) {
  const [list, setList] = useState<ConversationSummary[]>([]);
  const refreshList = useCallback(() => call('chatList').then(setList, () => undefined), []);
  const { conv, convRef, update, showIfOpen, forget, open, create, target, reload, showEarlier } = useOpenConversation(refreshList);
  const [live, setLive] = useState<Live>();
  const [draft, setDraft] = useState('');
  const [failure, setFailure] = useState<Failure>();
  /** The model picked before there is a conversation to hold it: the conversation made for the first message starts on it. */
  const [firstModel, setFirstModel] = useState<string>();
  const firstModelRef = useRef(firstModel);
  firstModelRef.current = firstModel;
  /** What chatCreate is told for the conversation made when there is none. */
  const createOpts = () => (firstModelRef.current ? { model: firstModelRef.current } : undefined);
  const liveRef = useRef<Live | undefined>(undefined);
  liveRef.current = live;
  const input = useRef<HTMLTextAreaElement>(null);
  // Streamed events reach React once per animation frame, however many arrive in between.
  const [batch] = useState(() => frameBatcher<ChatEvent>((events) => setLive((l) => (l ? events.reduce(applyEvent, l) : l))));
  /** The turn whose conversation was made for its message: if nothing of it is saved, the empty conversation goes again. */
  const madeFor = useRef<{ turnId: string; id: string } | undefined>(undefined);
  /** The turn in progress reported an error (its reply failed, or it was refused before sending). */
  const turnFailed = useRef(false);
  /** Settles a finished turn's version (use-versions.ts); the latest one, so `handle` keeps its identity. */
  const settleRef = useRef<(turn: Live, c: Conversation, failed: boolean) => void>(() => undefined);

  useEffect(() => onProject?.(conv?.project ?? 'default'), [conv?.project, onProject]);
  // The unsent message a lock kept comes back to the box (unless something was typed since).
  useEffect(() => {
    if (restoredDraft) setDraft((d) => d || restoredDraft.text);
  }, [restoredDraft]);
  // Main keeps the unsent message, so a lock (even one main starts when idle) does not lose it.
  useEffect(() => {
    saveDraft('chat', draft.trim() ? { text: draft, ...(convRef.current ? { conversationId: convRef.current.id } : {}) } : null);
  }, [draft]);

  // A small model named a conversation after its first exchange: the list and the open header show it.
  useEffect(
    () =>
      on('chatTitled', ({ conversationId, title }) => {
        void refreshList();
        update(conversationId, (c) => ({ ...c, title }));
      }),
    [refreshList, update],
  );
  /** Where a message or a file goes: the open conversation, or one made for it on the model picked before it. */
  const messageTarget = () => target(createOpts());
  /** The open conversation's id, made first if there is none (attachments are held for a conversation). */
  const ensureConversation = async (): Promise<string> => (await messageTarget()).id;
  const attachments = useAttachments(ensureConversation);
  const { keepOnly } = attachments;
  useEffect(() => keepOnly(conv?.id), [keepOnly, conv?.id]);
  /** What went with the message being answered: shown in it, and back as chips if it was not sent. */
  const [sentFiles, setSentFiles] = useState<AttachmentRef[]>([]);
  const sentFilesRef = useRef(sentFiles);
  sentFilesRef.current = sentFiles;
  const openConversation = useCallback(
    async (id: string) => {
      await open(id);
      setFailure(undefined);
    },
    [open],
  );

  useEffect(() => {
    void call('chatList').then((l) => {
      setList(l);
      const last = lastOpened();
      const pick = l.find((c) => c.id === last) ?? l.find((c) => !c.archived);
      if (pick) void openConversation(pick.id);
    });
  }, [openConversation]);

  const newConversation = useCallback(
    async (opts?: NewConversation) => {
      await create(opts);
      input.current?.focus();
      await refreshList();
    },
    [create, refreshList],
  );

  const stop = useCallback(() => {
    const l = liveRef.current;
    if (l) void call('chatStop', { turnId: l.turnId });
  }, []);

  /** One event of the turn in progress. */
  const handle = useCallback(
    ({ turnId, conversationId, event }: ChatEventPayload) => {
      if (liveRef.current?.turnId !== turnId) return;
      if (event.type === 'done') {
        batch.flush();
        const turn = liveRef.current;
        const failedTurn = turnFailed.current;
        const sent = turn.userText;
        const made = madeFor.current?.turnId === turnId;
        madeFor.current = undefined;
        const shown = convRef.current?.id === conversationId ? convRef.current : undefined;
        void call('chatGet', { id: conversationId, ...reloadRange(shown) }).then(async (c) => {
          if (made && c.transcript.length === 0) {
            // The first message of a new conversation failed before anything was saved: leave no empty conversation behind.
            await call('chatDelete', { id: c.id }).catch(() => undefined);
            forget(c.id);
            setDraft((d) => d || sent);
            liveRef.current = undefined;
            setLive(undefined);
            void refreshList();
            return;
          }
          // Shown unless the user opened another conversation meanwhile (that one stays open).
          const before = convRef.current;
          // Nothing was saved: the message never went out, so give it back to the composer (an edit: to its editor, below).
          if (showIfOpen(c) && before && !turn.version && sizeOf(c) === sizeOf(before)) {
            setDraft((d) => d || sent);
            const files = sentFilesRef.current;
            attachments.setPending((p) => (p.length ? p : files));
          }
          settleRef.current(turn, c, failedTurn);
          liveRef.current = undefined;
          setLive(undefined);
          void refreshList();
        });
        return;
      }
      if (event.type === 'error') {
        // A stop the user asked for is shown in the transcript ("Stopped."), not as an error; so is the round limit, with Continue.
        if (event.code !== 'cancelled' && event.code !== 'max_rounds') {
          turnFailed.current = true;
          setFailure({ code: event.code, message: event.message });
        }
        return;
      }
      batch.push(event);
    },
    [refreshList, batch, convRef, forget, showIfOpen],
  );

  // Events can arrive before chatSend has answered with the turn's id: hold them until it has.
  const early = useRef<ChatEventPayload[] | undefined>(undefined);
  useEffect(
    () =>
      on('chatEvent', (payload) => {
        if (liveRef.current?.turnId === payload.turnId) handle(payload);
        else early.current?.push(payload);
      }),
    [handle],
  );

  useStaleKeyNotice(active, failure, setFailure);
  useChatKeys(active, liveRef, stop);
  // "Go to" a conversation, or to a project: its latest stored conversation, or a new one in it if it has none (the sidebar picks it).
  useChatRequests((r) => {
    if (r.kind === 'new') return;
    const id = r.kind === 'conversation' ? r.id : list.find((c) => !c.temporary && (c.project ?? 'default') === r.id)?.id;
    if (id) void openConversation(id);
    else if (r.kind === 'project') void newConversation({ project: r.id });
  });

  /** Sends `text` with the waiting attachments (or `withFiles`, when they were just given back and not yet shown). */
  const send = async (text: string, withFiles?: AttachmentRef[]) => {
    // Words, files or both: an image alone is a message too.
    if (!text.trim() && !(withFiles ?? attachments.pending).length) return;
    if (liveRef.current) {
      setFailure({ code: 'busy', message: 'Claude is still answering (in this or another conversation). Wait for the reply, or stop it, then send.' });
      return;
    }
    setFailure(undefined);
    try {
      const target = await messageTarget();
      early.current = [];
      const files = withFiles ?? attachments.pending;
      const { turnId } = await call('chatSend', { id: target.id, text, ...(files.length ? { attachments: files.map((f) => f.id) } : {}) });
      // A conversation made for attachments stays if the message fails: main still holds them for it.
      if (target.transcript.length === 0 && !files.length) madeFor.current = { turnId, id: target.id };
      setSentFiles(files);
      attachments.setPending([]);
      attachments.setErrors([]);
      setDraft('');
      follow({ turnId, conversationId: target.id, userText: text });
    } catch (err) {
      early.current = undefined;
      setFailure({ code: 'send', message: messageOf(err) });
    }
  };
  /** Shows the turn just started and hands it the events that came before its id was known. */
  const follow = (turn: Pick<Live, 'turnId' | 'conversationId' | 'userText' | 'continued' | 'version'>) => {
    batch.clear();
    turnFailed.current = false;
    const started: Live = { ...turn, text: '', parts: [], thinking: '', tools: [], approvals: [] };
    liveRef.current = started;
    setLive(started);
    for (const payload of (early.current ?? []).splice(0)) handle(payload);
    early.current = undefined;
  };
  /** Runs the next rounds of a reply the round limit stopped, on the same conversation. */
  const continueTurn = async () => {
    const id = convRef.current?.id;
    if (!id || liveRef.current) return;
    setFailure(undefined);
    // The button goes while Claude carries on: focus waits in the message box (Esc stops), not on the page.
    input.current?.focus();
    try {
      early.current = [];
      const { turnId } = await call('chatContinue', { id });
      setSentFiles([]);
      follow({ turnId, conversationId: id, userText: '', continued: true });
    } catch (err) {
      early.current = undefined;
      setFailure({ code: 'send', message: messageOf(err) });
    }
  };

  /** Starts a turn with `begin` and follows it; false (the error shown) when main refused it. */
  const startTurn = async (begin: () => Promise<{ turnId: string }>, turn: Pick<Live, 'conversationId' | 'userText' | 'version'>): Promise<boolean> => {
    setFailure(undefined);
    try {
      early.current = [];
      const { turnId } = await begin();
      follow({ turnId, ...turn });
      return true;
    } catch (err) {
      early.current = undefined;
      setFailure({ code: 'send', message: messageOf(err) });
      return false;
    }
  };
  const versions = useVersions({ convRef, liveRef, input, startTurn, reload, fail: (code, message) => setFailure({ code, message }), setSentFiles });
  settleRef.current = versions.settle;

  /** Takes back the last exchange of a failed reply (for Retry); its attachments wait again as chips. */
  const rewind = async (): Promise<{ id: string; text: string; files: AttachmentRef[] } | undefined> => {
    if (!conv) return undefined;
    try {
      const { text, attachments: files = [] } = await call('chatRewind', { id: conv.id });
      await openConversation(conv.id);
      attachments.restore(conv.id, files);
      return { id: conv.id, text, files };
    } catch (err) {
      setFailure({ code: 'rewind', message: messageOf(err) });
      return undefined;
    }
  };
  /** A message that never went out is in the box: send it. One that got a broken reply: take that exchange back and send again. */
  const retry = async () => {
    if (draft.trim() || attachments.pending.length) return send(draft);
    // A version's turn failed, or the last message has versions (it cannot be taken back): make that version again.
    if (versions.actions.retry(lastUserIndex)) return;
    const back = await rewind();
    if (!back) return;
    // The user opened another conversation meanwhile: the words wait in the box (the files with their own conversation), never sent elsewhere.
    if (convRef.current?.id !== back.id) return setDraft((d) => d || back.text);
    await send(back.text, back.files);
  };

  // The last message the user sent (it may be files without words), and its index in the whole transcript.
  const lastUser = [...(conv?.transcript ?? [])].reverse().find((e) => e.role === 'user');
  const lastUserIndex = conv && lastUser ? (conv.earlier ?? 0) + conv.transcript.lastIndexOf(lastUser) : undefined;
  const editingHere = versions.editing;
  // While a new version streams, what it replaces is out of view (an edit: its message on; a regeneration: its replies).
  const turnHere = live && live.conversationId === conv?.id ? live.version : undefined;
  const { shownEntries, decor } = useDecor(conv, turnHere, live !== undefined, editingHere);
  const total = conv?.costUSD ?? (conv?.transcript ?? []).reduce((sum, e) => sum + (e.role === 'assistant' && e.usage?.costUSD ? e.usage.costUSD : 0), 0);
  /** Sets the open conversation's model (null: back to the one in Settings), or the first one's when none is open yet. */
  const pickModel = async (model: string | null) => {
    const c = convRef.current;
    if (!c) return setFirstModel(model ?? undefined);
    try {
      await call('chatSetModel', { id: c.id, model });
      update(c.id, (now) => {
        const { model: _before, ...rest } = now;
        return model ? { ...rest, model } : rest;
      });
    } catch (err) {
      setFailure({ code: 'model', message: messageOf(err) });
    }
  };

  return (
    <div className="chat">
      <Sidebar list={list} selected={conv?.id} onSelect={(id) => void openConversation(id)} onNew={(opts) => void newConversation(opts)} onChanged={() => void refreshList().then(() => conv && openConversation(conv.id).catch(() => forget(conv.id)))} />
      {/* The chips name paths in the open conversation's project. */}
      <ChipProject.Provider value={conv?.project}>
      <AttachmentConversation.Provider value={conv?.id}>
      <div className={conv?.temporary ? 'conversation temporary' : 'conversation'}>
        <ConversationHeader conversation={conv} busy={live !== undefined} active={active} end={headerEnd} />
        <EntryActionsContext.Provider value={versions.actions}>
        <Messages
          conversationId={conv?.id}
          entries={shownEntries}
          decor={decor}
          earlier={conv?.earlier ?? 0}
          onEarlier={() => conv && showEarlier(conv.id)}
          followKey={live?.turnId}
          onOpen={onOpenMemory}
          tail={
            <>
              {(!conv || conv.transcript.length === 0) && !live && <Greeting temporary={conv?.temporary} />}
              {live && live.conversationId === conv?.id && <LiveReply live={live} sentFiles={sentFiles} onOpen={onOpenMemory} setLive={setLive} />}
              {!live && stoppedByRoundLimit(conv) && (
                <div className="continue-row">
                  <button onClick={() => void continueTurn()} title="Let Claude carry on where the round limit stopped it">
                    Continue
                  </button>
                </div>
              )}
              {failure && (
                <div role="alert" className="error inline-error">
                  <p>{failure.message}</p>
                  {(failure.code === 'no_key' || failure.code === 'auth') && <button onClick={onOpenSettings}>Open Settings</button>}
                  {/* A version that could not be shown is no message to send again. */}
                  {!live && (lastUser || draft.trim() || attachments.pending.length > 0) && failure.code !== 'cancelled' && failure.code !== 'version' && <button onClick={() => void retry()}>Retry</button>}
                </div>
              )}
            </>
          }
        />
        </EntryActionsContext.Provider>
        <Composer
          draft={draft}
          setDraft={setDraft}
          input={input}
          busy={Boolean(live)}
          onSend={() => void send(draft)}
          onStop={stop}
          onEditLast={!live && lastUserIndex !== undefined && !editingHere ? () => versions.actions.startEdit(lastUserIndex) : undefined}
          // Nothing to total before a reply has cost something: "$0.0000" would only be noise.
          total={conv && total > 0 ? `Conversation total: ${money(total)}` : ''}
          attachments={attachments}
          model={<ConversationModel model={conv ? conv.model : firstModel} active={active} onChange={(m) => void pickModel(m)} />}
        />
      </div>
      </AttachmentConversation.Provider>
      </ChipProject.Provider>
    </div>
  );
}

/** The last reply was stopped by the round limit, so Continue can carry it on. */
function stoppedByRoundLimit(conv: Conversation | undefined): boolean {
  const last = conv?.transcript.at(-1);
  return last?.role === 'assistant' && last.error?.code === 'max_rounds';
}

export { usageLine };
