import { useCallback, useEffect, useState } from 'react';
import { ChatView } from './features/chat/ChatView';
import { MemoriesView } from './features/memories/MemoriesView';
import { SettingsView } from './features/settings/SettingsView';
import { CreateVault } from './features/unlock/CreateVault';
import { RollbackNotice } from './features/unlock/RollbackNotice';
import { SetPassphrase } from './features/unlock/SetPassphrase';
import { Unlock, type UnlockNotice } from './features/unlock/Unlock';
import { call, messageOf, on } from './lib/api';

type Phase = { kind: 'loading' } | { kind: 'create' } | { kind: 'locked'; reason?: string } | { kind: 'open'; notice: UnlockNotice } | { kind: 'failed'; message: string };
type Tab = 'chat' | 'memories' | 'settings';

/** Create → unlock → the app. Locking unmounts everything that holds decrypted text. */
export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  useEffect(() => {
    call('vaultStatus').then(
      (s) => setPhase(!s.exists ? { kind: 'create' } : s.unlocked ? { kind: 'open', notice: { rolledBack: s.rolledBack, damaged: [] } } : { kind: 'locked' }),
      (err: unknown) => setPhase({ kind: 'failed', message: messageOf(err) }),
    );
    return on('vaultLocked', (e) => setPhase({ kind: 'locked', reason: e.reason === 'idle' ? 'Locked after being idle.' : e.reason === 'system' ? 'Locked because the computer locked or went to sleep.' : undefined }));
  }, []);

  switch (phase.kind) {
    case 'loading':
      return <p className="centered">Opening…</p>;
    case 'failed':
      return (
        <p role="alert" className="centered error">
          {phase.message}
        </p>
      );
    case 'create':
      return <CreateVault onDone={() => setPhase({ kind: 'open', notice: { rolledBack: false, damaged: [] } })} />;
    case 'locked':
      return (
        <>
          {phase.reason && <p className="banner">{phase.reason}</p>}
          <Unlock onUnlocked={(notice) => setPhase({ kind: 'open', notice })} />
        </>
      );
    case 'open':
      if (phase.notice.viaRecoveryKey) return <SetPassphrase onDone={() => setPhase({ kind: 'open', notice: { ...phase.notice, viaRecoveryKey: false } })} />;
      return <Workspace notice={phase.notice} />;
  }
}

function Workspace({ notice }: { notice: UnlockNotice }) {
  const [tab, setTab] = useState<Tab>('chat');
  const [openPath, setOpenPath] = useState<string>();
  const [dismissed, setDismissed] = useState(false);
  const [rolledBack, setRolledBack] = useState(notice.rolledBack);
  const lock = useCallback(() => void call('vaultLock'), []);
  const openInEditor = useCallback((path: string) => {
    setOpenPath(path);
    setTab('memories');
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.shiftKey && e.key.toLowerCase() === 'l') {
        e.preventDefault();
        lock();
      } else if (mod && ['1', '2', '3'].includes(e.key)) {
        e.preventDefault();
        setTab((['chat', 'memories', 'settings'] as const)[Number(e.key) - 1]!);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [lock]);

  const tabs: Array<[Tab, string]> = [
    ['chat', 'Chat'],
    ['memories', 'Memories'],
    ['settings', 'Settings'],
  ];
  return (
    <div className="workspace">
      <header className="topbar">
        <span className="brand">Mnemo</span>
        <nav role="tablist" aria-label="Sections">
          {tabs.map(([id, label]) => (
            <button key={id} role="tab" aria-selected={tab === id} aria-controls={`panel-${id}`} id={`tab-${id}`} onClick={() => setTab(id)}>
              {label}
            </button>
          ))}
        </nav>
        <button className="lock" onClick={lock} title="Lock (Ctrl+Shift+L)">
          Lock
        </button>
      </header>
      {rolledBack && <RollbackNotice onAccepted={() => setRolledBack(false)} />}
      {!dismissed && notice.damaged.length > 0 && (
        <div role="alert" className="banner warning">
          <p>Some vault files are damaged: {notice.damaged.join('; ')}. The rest opens normally; check the vault in Settings.</p>
          <button onClick={() => setDismissed(true)}>Dismiss</button>
        </div>
      )}
      {/* The chat stays mounted so a reply keeps streaming while another section is open. */}
      <section role="tabpanel" id="panel-chat" aria-labelledby="tab-chat" className="panel" hidden={tab !== 'chat'}>
        <ChatView active={tab === 'chat'} onOpenMemory={openInEditor} onOpenSettings={() => setTab('settings')} />
      </section>
      {tab === 'memories' && (
        <section role="tabpanel" id="panel-memories" aria-labelledby="tab-memories" className="panel">
          <MemoriesView initialPath={openPath} />
        </section>
      )}
      {tab === 'settings' && (
        <section role="tabpanel" id="panel-settings" aria-labelledby="tab-settings" className="panel">
          <SettingsView />
        </section>
      )}
    </div>
  );
}
