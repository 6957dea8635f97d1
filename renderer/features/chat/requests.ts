/**
 * Asks from outside the chat (the "Go to" palette) for the chat to open a
 * conversation or show a project. The chat and its sidebar own that state, so
 * the ask travels as an event they listen for, not as props through the app.
 */
import { useEffect, useRef } from 'react';

export type ChatRequest = { kind: 'conversation'; id: string } | { kind: 'project'; id: string } | { kind: 'new'; temporary: boolean };

const bus = new EventTarget();

/** Asks the chat to act on `r` (heard by whichever chat view and sidebar are mounted). */
export function requestChat(r: ChatRequest): void {
  bus.dispatchEvent(new CustomEvent<ChatRequest>('request', { detail: r }));
}

/** Calls `handle` with each request while mounted; the latest `handle` is used, so it may close over fresh state. */
export function useChatRequests(handle: (r: ChatRequest) => void): void {
  const latest = useRef(handle);
  latest.current = handle;
  useEffect(() => {
    const listen = (e: Event) => latest.current((e as CustomEvent<ChatRequest>).detail);
    bus.addEventListener('request', listen);
    return () => bus.removeEventListener('request', listen);
  }, []);
}
