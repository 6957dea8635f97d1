import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Drafts, MemoryDraft } from '../electron/shared/drafts';
import { ChatView } from './features/chat/ChatView';
import { useReviewCount } from './features/memories/ReviewCount';
import { MemoryPane, type PaneRequest } from './features/chat/MemoryPane';
import { MemoriesView, type MemoryTarget } from './features/memories/MemoriesView';
import { FIRST_PROJECT } from './features/memories/projects';
import { Splitter, usePaneSize } from './features/memories/Splitter';
import { OutsideApprovals } from './features/other-apps/OutsideApprovals';
import { requestChat } from './features/chat/requests';
import type { PaletteTarget } from './features/palette/filter';
import { Palette } from './features/palette/Palette';
import { ShortcutSheet } from './features/shortcuts/ShortcutSheet';
import { Announcer } from './components/Announcer';
import { SettingsView } from './features/settings/SettingsView';
import { ApiKeyStep } from './features/unlock/ApiKeyStep';
import { CreateVault } from './features/unlock/CreateVault';
import { DraftOffer } from './features/unlock/DraftOffer';
import { RollbackNotice } from './features/unlock/RollbackNotice';
import { SetPassphrase } from './features/unlock/SetPassphrase';
import { Unlock, type UnlockNotice } from './features/unlock/Unlock';
import { call, messageOf, on, said } from './lib/api';
import type { Keyed, MessageParams } from '../electron/shared/messages';
import { discardDraft, flushDrafts, resetDrafts } from './lib/drafts';
import { focusWhenReady } from './lib/focus';
import { imeOwnsKey } from './lib/keys';
import { inTextBox, keysOf, matches, modalOpen } from './lib/shortcuts';

type Phase = { kind: 'loading' } | { kind: 'create' } | { kind: 'apikey' } | { kind: 'locked'; reason?: 'idle' | 'system' | 'header' } | { kind: 'open'; notice: UnlockNotice } | { kind: 'failed'; message: string };
type Tab = 'chat' | 'memories' | 'settings';
/** The id of the memory pane beside the chat. */
const PANE = 'memory-pane';
/** Where focus goes when the pane opens, in order of preference: the open file, the tree, why nothing shows. */
const PANE_FOCUS = ['.cm-content', '[role="treeitem"][tabindex="0"]', '.pane-error'];
const TAB_KEYS = ['tabChat', 'tabMemories', 'tabSettings'] as const;
const TABS = [
  ['chat', 'tabs.chat'],
  ['memories', 'tabs.memories'],
  ['settings', 'tabs.settings'],
] as const satisfies ReadonlyArray<readonly [Tab, string]>;
/** Why the vault locked by itself, said on the unlock screen (a lock the user asked for needs no word). */
const LOCK_REASONS = { idle: 'lockReason.idle', system: 'lockReason.system', header: 'lockReason.header' } as const;
/** The message box, where work in the chat starts (found by its class: its name is in the window's language). */
const MESSAGE_BOX = '#panel-chat textarea.composer-input';
/** The conversation list beside the chat. */
const LIST = '#panel-chat .sidebar.conversations';

/** Create → unlock → the app. Locking unmounts everything that holds decrypted text. */
export function App() {
  const { t } = useTranslation();
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  /** Unsaved work the vault could not take at the last lock: kept here, in this window only, until the next unlock. */
  const [kept, setKept] = useState<{ drafts: Drafts; message: string; key?: string; params?: MessageParams }>();

  /** Counts the vault folder's changes: the unlock or create screen starts anew for each (its first field focused). */
  const [folderMoves, setFolderMoves] = useState(0);
  const showStatus = useCallback(
    () =>
      call('vaultStatus').then(
        (s) => setPhase(!s.exists ? { kind: 'create' } : s.unlocked ? { kind: 'open', notice: { rolledBack: s.rolledBack, damaged: [] } } : { kind: 'locked' }),
        (err: unknown) => setPhase({ kind: 'failed', message: messageOf(err) }),
      ),
    [],
  );
  /** Another vault folder is in use ("Open a vault…"): show what main says is there. */
  const folderMoved = useCallback(() => void showStatus().then(() => setFolderMoves((n) => n + 1)), [showStatus]);

  useEffect(() => {
    void showStatus();
    // Main says so before the keys go; the text comes back into its box after the next unlock.
    const offKept = on('draftsNotSaved', (e) => setKept(e));
    const offLocked = on('vaultLocked', (e) => {
      // Main wrote the drafts it held into the vault before locking; nothing of them stays here.
      resetDrafts();
      setPhase({ kind: 'locked', ...(e.reason !== 'user' ? { reason: e.reason } : {}) });
    });
    return () => {
      offKept();
      offLocked();
    };
  }, [showStatus]);
  const takeKept = useCallback(() => setKept(undefined), []);

  switch (phase.kind) {
    case 'loading':
      return <p className="centered">{t('app.opening')}</p>;
    case 'failed':
      return (
        <p role="alert" className="centered error">
          {phase.message}
        </p>
      );
    case 'create':
      return <CreateVault key={folderMoves} onDone={() => setPhase({ kind: 'apikey' })} onFolderMoved={folderMoved} />;
    case 'apikey':
      return <ApiKeyStep onDone={() => setPhase({ kind: 'open', notice: { rolledBack: false, damaged: [] } })} />;
    case 'locked':
      return (
        <>
          {phase.reason && <p className="banner">{t(LOCK_REASONS[phase.reason])}</p>}
          {kept && (
            <p role="alert" className="banner warning">
              {said(kept)}
            </p>
          )}
          <Unlock key={folderMoves} onUnlocked={(notice) => setPhase({ kind: 'open', notice })} onFolderMoved={folderMoved} />
        </>
      );
    case 'open':
      if (phase.notice.viaRecoveryKey) return <SetPassphrase onDone={() => setPhase({ kind: 'open', notice: { ...phase.notice, viaRecoveryKey: false } })} />;
      return <Workspace notice={phase.notice} kept={kept?.drafts} onKeptTaken={takeKept} onFolderMoved={folderMoved} />;
  }
}

function Workspace({ notice, kept, onKeptTaken, onFolderMoved }: { notice: UnlockNotice; kept?: Drafts | undefined; onKeptTaken: () => void; onFolderMoved: () => void }) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>('chat');
  // Where the Memories tab is asked to go (a restored draft), and the pane beside the chat.
  const [memoriesAt, setMemoriesAt] = useState<MemoryTarget & { n: number }>();
  const [paneOpen, setPaneOpen] = useState(false);
  /** In a narrow window the conversation list gives way to the pane: shown over the chat from its toggle until closed. */
  const [listOver, setListOver] = useState(false);
  const [paneAt, setPaneAt] = useState<PaneRequest>();
  const [paneWidth, setPaneWidth] = usePaneSize('memory', 440, 260, 960);
  const [chatProject, setChatProject] = useState(FIRST_PROJECT);
  const [dismissed, setDismissed] = useState(false);
  const [rolledBack, setRolledBack] = useState(notice.rolledBack);
  /** Notices since the unlock, each with its catalog key (an ingest found this computer's records replaced, say). */
  const [later, setLater] = useState<{ message: string; key?: Keyed | undefined }[]>([]);
  useEffect(
    () =>
      on('vaultSynced', (p) => {
        if (!p.notices?.length) return;
        setLater((was) => [...was, ...p.notices!.map((message, i) => ({ message, key: p.noticeKeys?.[i] }))]);
        setDismissed(false);
      }),
    [],
  );
  const notices = [...(notice.notices ?? []).map((message, i) => ({ message, key: notice.noticeKeys?.[i] })), ...later];
  const [drafts, setDrafts] = useState<Drafts>();
  const [restored, setRestored] = useState<MemoryDraft>();
  /** The modal open over the workspace, if any: "Go to" (Ctrl+K) or the shortcut sheet (Ctrl+/). */
  const [overlay, setOverlay] = useState<'palette' | 'shortcuts'>();
  const toReview = useReviewCount();
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ chat: null, memories: null, settings: null });
  const lock = useCallback(() => {
    // The last keystrokes may still be waiting to reach main: send them first, so the lock keeps them.
    void flushDrafts().then(() => call('vaultLock'));
  }, []);

  /** Shows a section and puts focus where work in it starts, so focus never drops to the page. */
  const show = useCallback((next: Tab, focus: 'tab' | 'content' = 'content') => {
    setTab(next);
    if (focus === 'tab') return tabRefs.current[next]?.focus();
    const target = next === 'chat' ? MESSAGE_BOX : next === 'memories' ? (document.querySelector('#panel-memories .cm-content') ? '#panel-memories .cm-content' : '#panel-memories h1') : '#panel-settings h1';
    focusWhenReady(target);
  }, []);
  /** A chip's "Open in editor": the file opens in the pane beside the chat, in the chip's project, with focus in its editor (or on why it could not open). */
  const openInEditor = useCallback((path: string, project: string = FIRST_PROJECT) => {
    setPaneAt((p) => ({ path, project, n: (p?.n ?? 0) + 1 }));
    setPaneOpen(true);
    setTab('chat');
    focusWhenReady(`#${PANE} .editor[data-doc^="${CSS.escape(path)}#"] .cm-content, #${PANE} .pane-error`);
  }, []);
  /** Opens or closes the pane; focus goes into it (the open file, else the tree, else its heading) or back to the toggle. */
  const paneOpenRef = useRef(paneOpen);
  paneOpenRef.current = paneOpen;
  const togglePane = useCallback(() => {
    const open = !paneOpenRef.current;
    setTab('chat');
    setPaneOpen(open);
    setListOver(false);
    if (!open) return focusWhenReady('#memory-toggle');
    // The pane stays mounted while closed, so what it shows is already there once it is visible.
    requestAnimationFrame(() => focusWhenReady(PANE_FOCUS.map((s) => `#${PANE} ${s}`).find((s) => document.querySelector(s)) ?? `#${PANE} h2`));
  }, []);

  useEffect(() => {
    // Drafts the vault could not take at the last lock come back from this window, ahead of what the vault kept.
    const withKept = (d: Drafts) => (setDrafts({ ...d, ...kept }), onKeptTaken());
    call('draftsGet').then(withKept, () => withKept({}));
    // Entering the app: focus goes to the message box, where most work starts.
    focusWhenReady(MESSAGE_BOX);
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Lock works whatever is open; the palette and the sheet swap with each other; the rest wait until a dialog closes.
      const tab = TAB_KEYS.findIndex((id) => matches(e, id));
      if (matches(e, 'lock')) {
        e.preventDefault();
        lock();
      } else if (matches(e, 'palette')) {
        e.preventDefault();
        setOverlay((o) => (o === 'palette' ? undefined : 'palette'));
      } else if (matches(e, 'shortcuts') || (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !imeOwnsKey(e) && !inTextBox(e.target) && !modalOpen())) {
        e.preventDefault();
        setOverlay((o) => (o === 'shortcuts' ? undefined : 'shortcuts'));
      } else if (modalOpen()) {
        return;
      } else if (matches(e, 'memoryPane')) {
        e.preventDefault();
        togglePane();
      } else if (tab >= 0) {
        e.preventDefault();
        show(TABS[tab]![0]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [lock, show, togglePane]);

  const goTo = useCallback(
    (t: PaletteTarget) => {
      if (t.kind === 'conversation' || t.kind === 'project') {
        requestChat(t);
        show('chat');
      } else if (t.kind === 'memory') {
        setMemoriesAt((p) => ({ path: t.path, project: t.project, n: (p?.n ?? 0) + 1 }));
        setTab('memories');
        focusWhenReady(`#panel-memories .editor[data-doc^="${CSS.escape(t.path)}#"] .cm-content`);
      } else if (t.kind === 'setting') {
        setTab('settings');
        // The section's heading takes focus, so it is read out and scrolled into view.
        focusWhenReady(`#panel-settings #${CSS.escape(t.heading)}`, 120, true);
      } else if (t.action === 'new' || t.action === 'temporary') {
        requestChat({ kind: 'new', temporary: t.action === 'temporary' });
        show('chat');
      } else if (t.action === 'lock') {
        lock();
      }
    },
    [show, lock],
  );
  /** Where a "Go to" choice leads; focus goes where work there starts, once the closed palette has let go of the page. */
  const go = useCallback((t: PaletteTarget) => {
    setOverlay(t.kind === 'action' && t.action === 'shortcuts' ? 'shortcuts' : undefined);
    requestAnimationFrame(() => goTo(t));
  }, [goTo]);

  // The ARIA tabs pattern: one Tab stop for the tab list, arrows and Home/End move between tabs (and show them).
  const onTabKey = (e: React.KeyboardEvent) => {
    const i = TABS.findIndex(([id]) => id === tab);
    const to = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    show(TABS[to]![0], 'tab');
  };

  const memoryDraft = drafts?.memory;
  return (
    <div className="workspace">
      <header className="topbar">
        <button type="button" className="skip-link" onClick={() => show('chat')}>
          {t('shell.skipToMessage')}
        </button>
        <span className="brand">Mnemo</span>
        <nav aria-label={t('shell.sections')}>
          <div role="tablist" aria-label={t('shell.sections')} className="tabs" onKeyDown={onTabKey}>
            {TABS.map(([id, label]) => (
              <button
                key={id}
                ref={(el) => void (tabRefs.current[id] = el)}
                role="tab"
                aria-selected={tab === id}
                aria-controls={`panel-${id}`}
                id={`tab-${id}`}
                tabIndex={tab === id ? 0 : -1}
                onClick={() => setTab(id)}
              >
                {t(label)}
                {/* Said as "Memories 2 to review": the visible count is part of the tab's name. */}
                {id === 'memories' && toReview > 0 && (
                  <>
                    {' '}
                    <span className="tab-count">{toReview}</span>
                    <span className="spoken"> {t('shell.toReview', { count: toReview })}</span>
                  </>
                )}
              </button>
            ))}
          </div>
        </nav>
        <button className="lock" onClick={lock} title={t('shell.lockTitle', { keys: keysOf('lock') })}>
          {t('shell.lock')}
        </button>
      </header>
      {rolledBack && <RollbackNotice onAccepted={() => setRolledBack(false)} />}
      {!dismissed && notices.length > 0 && (
        <div role="status" className="banner">
          {notices.map((n, i) => (
            <p key={`${i} ${n.message}`} dir="auto">
              {said({ message: n.message, ...n.key })}
            </p>
          ))}
          <button onClick={() => setDismissed(true)}>{t('shell.dismiss')}</button>
        </div>
      )}
      {!dismissed && notice.damaged.length > 0 && (
        <div role="alert" className="banner warning">
          <p>{t('shell.damaged', { files: notice.damaged.join('; ') })}</p>
          <button onClick={() => setDismissed(true)}>{t('shell.dismiss')}</button>
        </div>
      )}
      {memoryDraft && (
        <DraftOffer
          draft={memoryDraft}
          onRestore={() => {
            // Into the project the edit was typed in (a draft from before projects: the first one), in the Memories tab.
            const project = memoryDraft.project ?? FIRST_PROJECT;
            setRestored(memoryDraft);
            setDrafts((d) => ({ ...d, memory: undefined }));
            setMemoriesAt((p) => ({ path: memoryDraft.path, project, n: (p?.n ?? 0) + 1 }));
            setTab('memories');
            focusWhenReady(`#panel-memories .editor[data-doc^="${CSS.escape(memoryDraft.path)}#"] .cm-content`);
          }}
          onDiscard={() => {
            void discardDraft('memory');
            setDrafts((d) => ({ ...d, memory: undefined }));
            focusWhenReady(MESSAGE_BOX);
          }}
        />
      )}
      {/* Changes other apps wait to have approved: above the sections, so they are seen (and kept) whichever tab is open. */}
      <OutsideApprovals />
      {/* Every section stays mounted (hidden when not shown): a reply keeps streaming, and nothing typed in one is lost by opening another. */}
      <main id="main" className="panels">
        <section role="tabpanel" id="panel-chat" aria-labelledby="tab-chat" className="panel" hidden={tab !== 'chat'}>
          <h1 className="sr-only" tabIndex={-1}>
            {t('tabs.chat')}
          </h1>
          {/* The conversation, and beside it (toggled) the memory of its project. */}
          <div
            className={`chat-area${paneOpen ? ' with-pane' : ''}${paneOpen && listOver ? ' list-over' : ''}`}
            onKeyDown={(e) => {
              // Escape puts the list shown over the chat away (not while a field in it, a rename, takes the key).
              if (e.key !== 'Escape' || !listOver || e.defaultPrevented || inTextBox(e.target) || !(e.target as Element).closest?.(LIST)) return;
              e.preventDefault();
              setListOver(false);
              focusWhenReady('#list-toggle');
            }}
            onClick={(e) => {
              // A conversation picked from the list shown over the chat: the list goes, the conversation shows.
              if (listOver && (e.target as Element).closest?.(`${LIST} .conv`)) setListOver(false);
            }}
          >
            {paneOpen && (
              // Only seen when the window is too narrow for the list beside the chat and the pane (styles.css).
              <button
                id="list-toggle"
                type="button"
                className="list-toggle"
                aria-expanded={listOver}
                onClick={() => {
                  setListOver((o) => !o);
                  if (!listOver) focusWhenReady(`${LIST} [aria-current="true"], ${LIST} input, ${LIST} button`);
                }}
              >
                <span aria-hidden="true">☰</span>
                <span className="spoken">{t('shell.conversationsToggle')}</span>
              </button>
            )}
            <ChatView
              active={tab === 'chat'}
              restoredDraft={drafts?.chat}
              restoredEdits={drafts?.edit}
              onOpenMemory={openInEditor}
              onOpenSettings={() => show('settings')}
              onProject={setChatProject}
              headerEnd={
                <button id="memory-toggle" className="memory-toggle" aria-expanded={paneOpen} aria-controls={PANE} onClick={togglePane} title={t('shell.memoryToggleTitle', { keys: keysOf('memoryPane') })}>
                  {t('shell.memoryToggle')}
                </button>
              }
            />
            {paneOpen && <Splitter label={t('shell.resizeMemoryPane')} controls={PANE} value={paneWidth} min={260} max={960} onChange={setPaneWidth} edge="start" />}
            <MemoryPane id={PANE} shown={paneOpen} project={chatProject} request={paneAt} width={paneWidth} onClose={togglePane} />
          </div>
          {/* Says "Copied" and the like for the chat's buttons; in the chat's panel, so other sections have no extra status. */}
          <Announcer />
        </section>
        <section role="tabpanel" id="panel-memories" aria-labelledby="tab-memories" className="panel" hidden={tab !== 'memories'}>
          <h1 className="sr-only" tabIndex={-1}>
            {t('tabs.memories')}
          </h1>
          <MemoriesView active={tab === 'memories'} goTo={memoriesAt} restored={restored} />
        </section>
        <section role="tabpanel" id="panel-settings" aria-labelledby="tab-settings" className="panel" hidden={tab !== 'settings'}>
          <h1 className="sr-only" tabIndex={-1}>
            {t('tabs.settings')}
          </h1>
          <SettingsView onFolderMoved={onFolderMoved} restoredNames={drafts?.names} />
        </section>
      </main>
      {overlay === 'palette' && <Palette onGo={go} onDismiss={() => setOverlay(undefined)} />}
      {overlay === 'shortcuts' && <ShortcutSheet onDismiss={() => setOverlay(undefined)} />}
    </div>
  );
}
