/**
 * The conversation open in the chat. React renders `conv`; events and awaited
 * calls read `convRef`, which is current between renders. Every change goes
 * through here and sets both at once, so the two never disagree (a reply that
 * ends, a title that arrives or a model picked while another conversation is
 * being opened must land on the conversation it belongs to). A switch under
 * way is kept too: a message sent meanwhile goes to the conversation being
 * opened, not the old one. Only the random id of the open conversation is kept
 * in the page's storage, so the same one reopens after a lock or a restart.
 */
import { useCallback, useRef, useState } from 'react';
import type { CallArgs } from '../../../electron/shared/ipc';
import type { Conversation } from '../../../electron/shared/ipc-values';
import { call } from '../../lib/api';

/** Entries a conversation opens with: the newest ones; earlier ones load on request ("Show earlier messages"). */
export const OPEN_TAIL = 200;
/** How many entries a conversation holds, loaded or not. */
export const sizeOf = (c: Conversation) => (c.earlier ?? 0) + c.transcript.length;
/** How to reload a conversation so that what is shown stays shown, from the same first entry, and anything new comes too. */
export const reloadRange = (c: Conversation | undefined) => (!c ? { tail: OPEN_TAIL } : c.earlier ? { from: c.earlier } : {});
const LAST_OPEN = 'mnemo.lastConversation';
/** What a new conversation is made with: its project, temporary or not, its model. */
type CreateOptions = CallArgs<'chatCreate'>[0];

/** The id of the conversation open when the window was last used, if any. */
export const lastOpened = () => localStorage.getItem(LAST_OPEN);

/** `onListChanged`: a conversation was made or deleted here, so the list is read again. */
export function useOpenConversation(onListChanged: () => unknown) {
  const [conv, setConvState] = useState<Conversation>();
  const convRef = useRef(conv);
  /** The conversation being switched to, if a switch is under way. */
  const switching = useRef<Promise<Conversation> | undefined>(undefined);

  /** Shows `c` (undefined: none), in the ref at once and on screen at the next render. */
  const show = useCallback((c: Conversation | undefined) => {
    convRef.current = c;
    setConvState(c);
  }, []);
  /** Changes conversation `id` if it is the open one; any other is left as it is. */
  const update = useCallback((id: string, change: (c: Conversation) => Conversation) => {
    if (convRef.current?.id === id) convRef.current = change(convRef.current);
    setConvState((now) => (now?.id === id ? change(now) : now));
  }, []);
  /** Puts `c` on screen unless the user opened another conversation meanwhile; true if it was shown. */
  const showIfOpen = useCallback((c: Conversation): boolean => {
    const open = convRef.current;
    if (open && open.id !== c.id) return false;
    show(c);
    return true;
  }, [show]);
  /** Takes conversation `id` off the screen (it was deleted) and out of the page's storage. */
  const forget = useCallback((id: string) => {
    if (localStorage.getItem(LAST_OPEN) === id) localStorage.removeItem(LAST_OPEN);
    if (convRef.current?.id === id) show(undefined);
  }, [show]);

  /** Waits for `next` (a conversation being opened or made) and shows it, unless another switch started meanwhile. */
  const switchTo = useCallback(async (next: Promise<Conversation>): Promise<Conversation> => {
    switching.current = next;
    try {
      const c = await next;
      if (switching.current === next) {
        show(c);
        localStorage.setItem(LAST_OPEN, c.id);
      }
      return c;
    } finally {
      if (switching.current === next) switching.current = undefined;
    }
  }, [show]);
  /** Opens conversation `id` at its newest entries. */
  const open = useCallback((id: string) => switchTo(call('chatGet', { id, tail: OPEN_TAIL })), [switchTo]);
  /** Makes a new conversation and opens it. */
  const create = useCallback((opts?: CreateOptions) => switchTo(call('chatCreate', opts).then((c): Conversation => ({ ...c, transcript: [] }))), [switchTo]);
  /**
   * The open conversation once every switch under way has ended (one started
   * while waiting included): the one on screen, which is where the user means
   * a message to go. A switch that failed leaves the one shown before.
   */
  const current = useCallback(async (): Promise<Conversation | undefined> => {
    for (let s = switching.current; s; ) {
      await s.catch(() => undefined);
      s = switching.current === s ? undefined : switching.current;
    }
    return convRef.current;
  }, []);
  /**
   * Where a message or a file goes: the open conversation (after a switch under
   * way), or one made for it with `opts` when none is open. If the user opened
   * another one while it was being made, that one is where they are: it is
   * used, and the empty one made meanwhile goes again.
   */
  const target = useCallback(
    async (opts?: CreateOptions): Promise<Conversation> => {
      const opened = await current();
      if (opened) return opened;
      const made = await create(opts);
      // A switch the user started meanwhile ends first: its conversation is where they are.
      const now = await current();
      if (now && now.id !== made.id) await call('chatDelete', { id: made.id }).catch(() => undefined);
      else if (!now) show(made);
      void onListChanged();
      return now ?? made;
    },
    [current, create, show, onListChanged],
  );
  /** Loads conversation `id` again, from the same first entry, and shows it if it is still the open one. */
  const reload = useCallback(async (id: string): Promise<Conversation> => {
    const c = await call('chatGet', { id, ...reloadRange(convRef.current?.id === id ? convRef.current : undefined) });
    if (convRef.current?.id === id) show(c);
    return c;
  }, [show]);
  /** Loads the whole conversation `id`, for "Show earlier messages". */
  const showEarlier = useCallback(async (id: string) => {
    const c = await call('chatGet', { id });
    if (convRef.current?.id === c.id) show(c);
  }, [show]);

  return { conv, convRef, show, update, showIfOpen, forget, open, create, current, target, reload, showEarlier };
}
