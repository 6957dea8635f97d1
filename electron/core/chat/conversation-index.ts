/**
 * The conversation index: one summary per conversation (title, dates, count, project, flags), so the list needs no
 * decrypting of every conversation. One value in a vault one computer writes; each computer's own cache in a vault
 * several write, its entries checked against the heads' versions.
 */
import type { ConversationSummary } from '../../shared/chat';
import { VaultError, type VaultApi } from '../vault/types';
import { unlockOf } from '../vault/until-lock';
import { readSummary } from './conversation-log';
import { flagsOf } from './conversation-values';

const INDEX = 'conversations-index';
/** An index entry; `hv` (several computers): the head's version it was made from, so another computer's change is seen. */
export type Indexed = ConversationSummary & { hv?: string };
const headOf = (id: string) => `conversations/${id}`;

/**
 * Per vault, the unlock in which its index was checked against every
 * conversation's head: a save writes the head before the index, so a crash (or
 * a lock) between the two leaves an entry with the old title, flags, count or
 * date that no later read would otherwise notice.
 */
const checked = new WeakMap<VaultApi, object>();

/**
 * Where the index is kept: one value (one writer), or this computer's own cache (several computers: each keeps its
 * own, never merged with another's, its entries checked against the heads' versions). Undefined: none kept here yet.
 */
export async function indexKeyOf(vault: VaultApi, create: boolean): Promise<string | undefined> {
  if (vault.internal.scheme?.() !== 2) return INDEX;
  const device = await vault.internal.device?.(create);
  return device ? `cache/${device}/conversations-index` : undefined;
}

/**
 * The index, rebuilt for any conversation it is missing, and on the first use
 * of this vault checked against every head (a crash between the head and the
 * index of a save leaves a stale entry: the head is what opens).
 */
export async function readIndex(vault: VaultApi): Promise<Record<string, Indexed>> {
  const key = await indexKeyOf(vault, false);
  const index = (key && (await vault.internal.getJSON<Record<string, Indexed>>(key))) || {};
  const stored = vault.internal.keys('conversations/').map((k) => k.slice('conversations/'.length));
  // Taken before the reads: a lock while they run leaves the next unlock to check again.
  const unlock = unlockOf(vault);
  const checkAll = checked.get(vault) !== unlock;
  for (const id of stored) {
    const hv = vault.internal.version?.(headOf(id));
    if (index[id] && !checkAll && index[id].hv === hv) continue;
    let s: Awaited<ReturnType<typeof readSummary>>;
    try {
      s = await readSummary(vault, id);
    } catch (e) {
      // Its head cannot be read now (several computers: its bytes still arriving, say moved by the other computer's
      // compaction before the checkpoint naming their new place came): its entry stays as last read, read again next
      // time, and opening it says what is wrong. Else it would stop the list, and every save after its data is stored.
      if (!(e instanceof VaultError && e.code === 'DAMAGED')) throw e;
      if (index[id]) index[id] = { ...index[id], hv: undefined };
      continue;
    }
    // None: deleted (several computers: the head stays, marked deleted).
    if (!s) delete index[id];
    else index[id] = { id, title: String(s.meta.title), created: Number(s.meta.created), updated: Number(s.meta.updated), messageCount: s.entries, ...(typeof s.meta.project === 'string' ? { project: s.meta.project } : {}), ...flagsOf(s.meta), ...(hv ? { hv } : {}) };
  }
  // (A set: an array's `includes` here made every save and list n × n comparisons.)
  const present = new Set(stored);
  for (const id of Object.keys(index)) if (!present.has(id)) delete index[id];
  checked.set(vault, unlock);
  return index;
}
