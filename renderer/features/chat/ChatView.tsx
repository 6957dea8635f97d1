import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationSummary } from '../../../electron/shared/chat';
import type { Conversation } from '../../../electron/shared/ipc-values';
import type { ChatDraft, EditDraft } from '../../../electron/shared/drafts';
import { call, on } from '../../lib/api';
import { saveDraft } from '../../lib/drafts';
import { ConversationHeader } from './ConversationHeader';
import { AttachmentConversation, useAttachments } from './Attachments';
import { Composer } from './Composer';
import { ConversationModel } from './ConversationModel';
import { Greeting } from './Greeting';
import { LiveReply } from './LiveReply';
import { Messages } from './Messages';
import { useChatRequests } from './requests';
import { Sidebar, type NewConversation } from './Sidebar';
import { ChipProject } from './ToolChip';
import { money, usageLine } from './Transcript';
import { useChatKeys, useStaleKeyNotice } from './chat-keys';
import { editShown, useDecor, useKeptEdits, useVersions, versionEnded } from './use-versions';
import { lastOpened, useOpenConversation } from './use-open-conversation';
import { FAILURE_KEYS, retryOffered, type Failure } from './turn-state';
import { useTurn, useTurnStore } from './use-turn';
import { EntryActionsContext } from './versions';

/** Conversations with Claude: streaming replies, every memory operation as a chip, approvals, stop, retry. */
export function ChatView({
  active,
  restoredDraft,
  restoredEdits,
  onOpenMemory,
  onOpenSettings,
  onProject,
  headerEnd,
}: {
  active: boolean;
  /** At the end of the conversation's header: the memory pane's toggle. */
  headerEnd?: React.ReactNode;
  restoredDraft?: ChatDraft | undefined;
  /** Messages being edited when the vault locked: back in their editors. */
  restoredEdits?: EditDraft[] | undefined;
  onOpenMemory: (path: string, project?: string) => void;
  onOpenSettings: () => void;
  /** Told the open conversation's project (absent: the first), for the memory pane beside the chat. */
  onProject?: (project: string) => void;
}) {
  const { t } = useTranslation('chat');
  const [list, setList] = useState<ConversationSummary[]>([]);
  const refreshList = useCallback(() => call('chatList').then(setList, () => undefined), []);
  const open = useOpenConversation(refreshList);
  const { conv, convRef, update, forget, showEarlier } = open;
  const [store, turn] = useTurnStore();
  const { live, draft, failure } = turn;
  const { dispatch } = store;
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => onProject?.(conv?.project ?? 'default'), [conv?.project, onProject]);
  // The unsent message a lock kept comes back to the box (unless something was typed since).
  useEffect(() => {
    if (restoredDraft) dispatch({ type: 'gaveBack', text: restoredDraft.text });
  }, [restoredDraft, dispatch]);
  // Main keeps the unsent message, so a lock (even one main starts when idle) does not lose it.
  useEffect(() => {
    saveDraft('chat', draft.trim() ? { text: draft, ...(convRef.current ? { conversationId: convRef.current.id } : {}) } : null);
  }, [draft]);
  useKeptEdits(store, turn.edits, restoredEdits);

  // Conversations another computer wrote (a vault several computers write) arrived: the list shows them.
  useEffect(() => on('vaultSynced', () => void refreshList()), [refreshList]);
  // A small model named a conversation after its first exchange: the list and the open header show it.
  useEffect(
    () =>
      on('chatTitled', ({ conversationId, title }) => {
        void refreshList();
        update(conversationId, (c) => ({ ...c, title }));
      }),
    [refreshList, update],
  );
  /** The open conversation's id, made first (on the model picked before it) if there is none: attachments are held for a conversation. */
  const ensureConversation = async (): Promise<string> => {
    const model = store.get().firstModel;
    return (await open.target(model ? { model } : undefined)).id;
  };
  const attachments = useAttachments(ensureConversation);
  const { keepOnly } = attachments;
  useEffect(() => keepOnly(conv?.id), [keepOnly, conv?.id]);
  const openConversation = useCallback(
    async (id: string) => {
      await open.open(id);
      dispatch({ type: 'clearedFailure' });
    },
    [open.open, dispatch],
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
      await open.create(opts);
      input.current?.focus();
      await refreshList();
    },
    [open.create, refreshList],
  );

  const turns = useTurn({ store, open, attachments, input, refreshList, onVersionEnded: versionEnded });
  const actions = useVersions({ store, convRef, input, startVersion: turns.startVersion, reload: open.reload, fail: turns.fail });
  const setFailure = useCallback((f: Failure) => dispatch({ type: 'failed', failure: f }), [dispatch]);
  useStaleKeyNotice(active, failure, setFailure);
  const streaming = useCallback(() => store.get().live !== undefined, [store]);
  useChatKeys(active, streaming, turns.stop);
  // "Go to" a conversation, or to a project: its latest stored conversation, or a new one in it if it has none (the sidebar picks it).
  useChatRequests((r) => {
    if (r.kind === 'new') return;
    const id = r.kind === 'conversation' ? r.id : list.find((c) => !c.temporary && (c.project ?? 'default') === r.id)?.id;
    if (id) void openConversation(id);
    else if (r.kind === 'project') void newConversation({ project: r.id });
  });

  // The last message the user sent (it may be files without words), and its index in the whole transcript.
  const lastUser = [...(conv?.transcript ?? [])].reverse().find((e) => e.role === 'user');
  const lastUserIndex = conv && lastUser ? (conv.earlier ?? 0) + conv.transcript.lastIndexOf(lastUser) : undefined;
  const editingHere = editShown(conv, turn.edits);
  // While a new version streams, what it replaces is out of view (an edit: its message on; a regeneration: its replies).
  const turnHere = live && live.conversationId === conv?.id ? live.version : undefined;
  const { shownEntries, decor } = useDecor(conv, turnHere, live !== undefined, editingHere);
  const total = conv?.costUSD ?? (conv?.transcript ?? []).reduce((sum, e) => sum + (e.role === 'assistant' && e.usage?.costUSD ? e.usage.costUSD : 0), 0);

  return (
    <div className="chat">
      <Sidebar list={list} selected={conv?.id} onSelect={(id) => void openConversation(id)} onNew={(opts) => void newConversation(opts)} onChanged={() => void refreshList().then(() => conv && openConversation(conv.id).catch(() => forget(conv.id)))} />
      {/* The chips name paths in the open conversation's project. */}
      <ChipProject.Provider value={conv?.project}>
      <AttachmentConversation.Provider value={conv?.id}>
      <div className={conv?.temporary ? 'conversation temporary' : 'conversation'}>
        <ConversationHeader conversation={conv} busy={live !== undefined} active={active} end={headerEnd} />
        <EntryActionsContext.Provider value={actions}>
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
              {live && live.conversationId === conv?.id && <LiveReply live={live} sentFiles={turn.sentFiles} onOpen={onOpenMemory} onDecide={turns.decide} />}
              {!live && stoppedByRoundLimit(conv) && (
                <div className="continue-row">
                  <button onClick={() => void turns.continueTurn()} title={t('transcript.continueTitle')}>
                    {t('transcript.continue')}
                  </button>
                </div>
              )}
              {failure && (
                <div role="alert" className="error inline-error">
                  <p>{failure.say ? t(FAILURE_KEYS[failure.say]) : failure.message}</p>
                  {(failure.code === 'no_key' || failure.code === 'auth') && <button onClick={onOpenSettings}>{t('transcript.openSettings')}</button>}
                  {/* A version that could not be shown is no message to send again. */}
                  {retryOffered(turn, lastUser !== undefined, attachments.pending.length) && <button onClick={() => void turns.retry(lastUserIndex, actions)}>{t('transcript.retry')}</button>}
                </div>
              )}
            </>
          }
        />
        </EntryActionsContext.Provider>
        <Composer
          draft={draft}
          setDraft={(text) => dispatch({ type: 'typed', text })}
          input={input}
          busy={Boolean(live)}
          sending={turns.sending}
          onSend={() => void turns.send(draft)}
          onStop={turns.stop}
          onEditLast={!live && lastUserIndex !== undefined && !editingHere ? () => actions.startEdit(lastUserIndex) : undefined}
          // Nothing to total before a reply has cost something: "$0.0000" would only be noise.
          total={conv && total > 0 ? t('composer.total', { cost: money(total) }) : ''}
          attachments={attachments}
          model={<ConversationModel model={conv ? conv.model : turn.firstModel} active={active} onChange={(m) => void turns.pickModel(m)} />}
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
