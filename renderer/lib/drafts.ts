/**
 * Hands the window's unsaved work to main as it changes (debounced), so a
 * lock — by the user or started by main when idle — keeps it encrypted in the
 * vault instead of throwing it away. See electron/core/drafts.ts.
 */
import type { ChatDraft, DraftKind, EditDraft, MemoryDraft, NameDrafts } from '../../electron/shared/drafts';
import { call } from './api';

type Value = { memory: MemoryDraft; chat: ChatDraft; edit: EditDraft[]; names: NameDrafts };
const WAIT_MS = 400;
const pending = new Map<DraftKind, { timer: ReturnType<typeof setTimeout>; send: () => Promise<void> }>();
/** Kinds main holds a draft of since this window last unlocked; only those need a discard. */
const held = new Set<DraftKind>();

/** Sets (or with null discards) one draft; main hears of it shortly after the last change. */
export function saveDraft<K extends DraftKind>(kind: K, draft: Value[K] | null): void {
  const before = pending.get(kind);
  if (before) clearTimeout(before.timer);
  if (draft === null && !held.has(kind) && !before) return;
  const send = async () => {
    pending.delete(kind);
    if (draft) held.add(kind);
    else held.delete(kind);
    await call('draftsPut', (draft ? { kind, draft } : { kind, draft: null }) as Parameters<typeof call<'draftsPut'>>[1]).catch(() => undefined);
  };
  pending.set(kind, { timer: setTimeout(() => void send(), WAIT_MS), send });
}

/** The unsaved memory edit of each open editor (the Memories tab and the pane beside the chat), by editor. */
const memoryEdits = new Map<string, MemoryDraft>();

/**
 * Sets (or with null discards) one editor's unsaved memory edit. Main keeps one
 * memory draft, so it gets the edit changed last among those still unsaved: a
 * second editor opening or saving a file never discards the first one's edit.
 */
export function saveMemoryDraft(owner: string, draft: MemoryDraft | null): void {
  memoryEdits.delete(owner);
  if (draft) memoryEdits.set(owner, draft);
  saveDraft('memory', [...memoryEdits.values()].at(-1) ?? null);
}

/** Discards a draft at once (restored or declined by the user), including one main kept from before the lock. */
export async function discardDraft(kind: DraftKind): Promise<void> {
  const before = pending.get(kind);
  if (before) clearTimeout(before.timer);
  pending.delete(kind);
  held.delete(kind);
  await call('draftsPut', { kind, draft: null } as Parameters<typeof call<'draftsPut'>>[1]).catch(() => undefined);
}

/** Sends every change still waiting, before a lock the window asks for. */
export async function flushDrafts(): Promise<void> {
  const sends = [...pending.values()];
  for (const p of sends) clearTimeout(p.timer);
  await Promise.all(sends.map((p) => p.send()));
}

/** Forgets what was pending (the window locked: main has written what it had). */
export function resetDrafts(): void {
  for (const p of pending.values()) clearTimeout(p.timer);
  pending.clear();
  held.clear();
  memoryEdits.clear();
}
