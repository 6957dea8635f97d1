/**
 * Unsaved work kept across a lock. While the vault is unlocked the window's
 * drafts live only in this process's memory; just before the keys are wiped
 * they are written into the vault's internal namespace (encrypted, outside
 * /memories, so Claude never sees them), and after the next unlock they are
 * offered back until the user restores or discards them.
 *
 * When several computers may write the vault (`internal.scheme()` 2), each
 * keeps its drafts under its own keys, `drafts/<device>/<kind>`, so two
 * computers locking at once never overwrite each other's draft; a draft kept
 * before that (`drafts/<kind>`) is still offered until discarded
 * (docs/sync-design.md §3).
 */
import { ChatDraft, EditDrafts, MemoryDraft, NameDrafts, type DraftKind, type DraftPut, type Drafts } from '../shared/drafts';
import { VaultError, type VaultApi } from './vault/types';
import { m, type LocalMessage } from './i18n/message';

const KEYS: Record<DraftKind, string> = { memory: 'drafts/memory', chat: 'drafts/chat', edit: 'drafts/edit', names: 'drafts/names' };
/** Scheme 2: the keys of this computer's drafts. */
const ownKey = (device: string, kind: DraftKind) => `drafts/${device}/${kind}`;
const SCHEMAS = { memory: MemoryDraft, chat: ChatDraft, edit: EditDrafts, names: NameDrafts } as const;
const KINDS = Object.keys(KEYS) as DraftKind[];

/** The drafts of one app session: held in memory while unlocked, persisted at lock. */
export class DraftKeeper {
  private held: Drafts = {};

  /**
   * Sets or discards one draft. A discarded draft is also removed from the
   * vault, so a draft the user has dealt with is not offered again.
   */
  async put(vault: VaultApi, change: DraftPut): Promise<void> {
    if (change.draft) {
      this.held = { ...this.held, [change.kind]: change.draft };
      return;
    }
    const { [change.kind]: _dropped, ...rest } = this.held;
    this.held = rest;
    for (const key of await this.storedKeys(vault, change.kind)) await vault.internal.delete(key);
  }

  /** The keys a draft of `kind` is kept under that hold one: this computer's own, then the one kept before several computers wrote the vault. */
  private async storedKeys(vault: VaultApi, kind: DraftKind): Promise<string[]> {
    const device = await vault.internal.device?.(false);
    const keys = device ? [ownKey(device, kind), KEYS[kind]] : [KEYS[kind]];
    return keys.filter((k) => vault.internal.keys(k).includes(k));
  }

  /**
   * Every draft there is: those set since unlock, and those kept in the vault
   * at the last lock (which stay there until discarded). A stored draft that no
   * longer validates is dropped rather than offered.
   */
  async all(vault: VaultApi): Promise<Drafts> {
    const out: Drafts = { ...this.held };
    for (const kind of KINDS) {
      for (const key of await this.storedKeys(vault, kind)) {
        if (out[kind]) break;
        const parsed = SCHEMAS[kind].safeParse(await vault.internal.getJSON<unknown>(key));
        if (parsed.success) Object.assign(out, { [kind]: parsed.data });
        else await vault.internal.delete(key);
      }
    }
    this.held = out;
    return out;
  }

  /**
   * Writes the held drafts into the vault (durable before it resolves) and
   * forgets them here, so no draft text stays in this process once locked.
   * Called just before the vault locks. Never throws: the drafts the vault
   * could not take come back, with what went wrong, for the window to keep.
   */
  async persist(vault: VaultApi): Promise<{ drafts: Drafts; failed?: LocalMessage }> {
    const held = this.held;
    this.held = {};
    const lost: Drafts = {};
    let failed: LocalMessage | undefined;
    for (const kind of KINDS) {
      const draft = held[kind];
      if (!draft) continue;
      try {
        const device = vault.internal.scheme?.() === 2 ? await vault.internal.device?.(true) : undefined;
        await vault.internal.putJSON(device ? ownKey(device, kind) : KEYS[kind], draft);
      } catch (err) {
        Object.assign(lost, { [kind]: draft });
        failed ??= err instanceof VaultError ? err.local : m('errors:drafts.writeFailed');
      }
    }
    return failed === undefined ? { drafts: lost } : { drafts: lost, failed: m('errors:drafts.notKept', { reason: failed }) };
  }

  /** Drops held chat drafts and open edits typed in a conversation `gone(id)` says is not kept (a temporary chat being forgotten). */
  dropChatIn(gone: (conversationId: string) => boolean): void {
    const { chat, edit, ...rest } = this.held;
    const edits = edit?.filter((e) => !gone(e.conversationId)) ?? [];
    this.held = { ...rest, ...(chat && !(chat.conversationId !== undefined && gone(chat.conversationId)) ? { chat } : {}), ...(edits.length ? { edit: edits } : {}) };
  }

  /** Drops the held drafts without writing them (the vault is already locked). */
  forget(): void {
    this.held = {};
  }

  /** True while a draft is held in memory (for tests of what a lock leaves behind). */
  holdsAny(): boolean {
    return KINDS.some((k) => this.held[k] !== undefined);
  }
}
