/**
 * The reply being streamed, as state: built from the turn's events in the order
 * they came, and fed to React at most once per animation frame however many
 * events arrive in it.
 */
import type { ChatEvent, ReplyPart, Usage } from '../../../electron/shared/chat';
import type { ToolView } from './ToolChip';

export interface Live {
  turnId: string;
  /** The conversation the turn belongs to; its reply is shown only there. */
  conversationId: string;
  userText: string;
  /** A Continue of a turn the round limit stopped: no message of the user's goes with it. */
  continued?: boolean;
  /**
   * A new version of the message at whole-transcript index `entry` (an edit of it, or a new reply to it), and how
   * many versions it had before: if it has no more after the turn, the turn was refused before sending.
   */
  version?: { entry: number; by: 'edit' | 'regenerate'; countBefore: number };
  text: string;
  /** Text blocks and memory calls in the order Claude produced them. */
  parts: ReplyPart[];
  thinking: string;
  tools: ToolView[];
  approvals: Array<Extract<ChatEvent, { type: 'approval' }>>;
  /** The API asked to wait (rate limited, or busy) and the request goes again in `inSeconds`. */
  retrying?: { rateLimited: boolean; inSeconds: number };
  usage?: Usage;
}

/** Appends a text delta to the reply's parts: to the open text block, or as a new block when one starts. */
function addText(parts: ReplyPart[], delta: string, start: boolean): ReplyPart[] {
  const last = parts.at(-1);
  if (!start && last?.type === 'text') return [...parts.slice(0, -1), { type: 'text', text: last.text + delta }];
  return [...parts, { type: 'text', text: delta }];
}

/** The live reply after one event of its turn. */
export function applyEvent(l: Live, e: ChatEvent): Live {
  switch (e.type) {
    case 'text':
      return { ...l, text: l.text + e.delta, parts: addText(l.parts, e.delta, e.start === true), retrying: undefined };
    case 'thinking':
      return { ...l, thinking: l.thinking + e.delta };
    case 'tool_start':
      return {
        ...l,
        parts: l.parts.some((p) => p.type === 'tool' && p.id === e.id) ? l.parts : [...l.parts, { type: 'tool', id: e.id }],
        tools: [...l.tools, { id: e.id, command: e.command, path: e.path, ...(e.newPath ? { newPath: e.newPath } : {}), running: true }],
      };
    case 'tool_end': {
      const { type: _t, ...done } = e;
      return {
        ...l,
        parts: l.parts.some((p) => p.type === 'tool' && p.id === e.id) ? l.parts : [...l.parts, { type: 'tool', id: e.id }],
        tools: l.tools.some((t) => t.id === e.id) ? l.tools.map((t) => (t.id === e.id ? done : t)) : [...l.tools, done],
        approvals: l.approvals.filter((a) => a.id !== e.id),
      };
    }
    case 'approval':
      return { ...l, approvals: [...l.approvals, e] };
    case 'retrying':
      return { ...l, retrying: { rateLimited: e.reason === 'rate_limited', inSeconds: e.inSeconds } };
    case 'usage':
      return { ...l, usage: e.turn };
    default:
      return l;
  }
}

/**
 * Collects events and hands them over in one batch per animation frame: a
 * burst of deltas between two paints costs one render, not one per delta.
 */
export function frameBatcher<T>(deliver: (items: T[]) => void): { push(item: T): void; flush(): void; clear(): void } {
  let pending: T[] = [];
  let scheduled: number | undefined;
  const flush = () => {
    if (scheduled !== undefined) cancelAnimationFrame(scheduled);
    scheduled = undefined;
    if (!pending.length) return;
    const items = pending;
    pending = [];
    deliver(items);
  };
  return {
    push(item) {
      pending.push(item);
      scheduled ??= requestAnimationFrame(() => {
        scheduled = undefined;
        flush();
      });
    },
    flush,
    clear() {
      pending = [];
    },
  };
}
