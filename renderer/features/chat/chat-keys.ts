/** The chat's window-wide keys, and the "no API key" error that goes stale once a key is set. */
import { useEffect } from 'react';
import { call } from '../../lib/api';
import { imeOwnsKey } from '../../lib/keys';
import { matches, modalOpen } from '../../lib/shortcuts';
import { requestChat } from './requests';
import type { Failure } from './turn-state';

/** A "no API key" error goes stale once a key is set (in Settings or first run): say so, and offer Retry. */
export function useStaleKeyNotice(active: boolean, failure: Failure | undefined, setFailure: (f: Failure) => void): void {
  useEffect(() => {
    if (!active || (failure?.code !== 'no_key' && failure?.code !== 'auth')) return;
    let live = true;
    call('settingsGet').then(
      (s) => {
        if (live && s.apiKeySource !== 'none' && failure.code === 'no_key') setFailure({ code: 'key_set', message: '', say: 'keySet' });
      },
      () => undefined,
    );
    return () => void (live = false);
  }, [active, failure, setFailure]);
}

/** While the chat is shown: Ctrl/Cmd+N starts a conversation, Esc stops the reply being written (`streaming`: one is). */
export function useChatKeys(active: boolean, streaming: () => boolean, stop: () => void): void {
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (modalOpen()) return;
      if (matches(e, 'newConversation')) {
        e.preventDefault();
        requestChat({ kind: 'new', temporary: false });
      } else if (matches(e, 'stop') && streaming() && !imeOwnsKey(e)) {
        e.preventDefault();
        stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active, streaming, stop]);
}
