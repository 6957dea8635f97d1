/**
 * The records the IPC contract (ipc.ts) carries, as zod schemas: a memory's
 * entries, versions, trash and review entries and who wrote them
 * (Provenance), the unlock report, the settings the window may see, a
 * conversation as the window gets it, the computers writing to the vault and
 * the vault's folder.
 */
import { z } from 'zod';
import { TranscriptEntry } from './chat';
import { Keyed } from './messages';
import { Settings } from './settings';

/** Who wrote a version or deleted a memory; absent on records from before it was kept (show "unknown"). */
export const Provenance = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('claude'), conversationId: z.string().optional(), turn: z.number().optional() }),
  z.object({ kind: z.literal('user') }),
  z.object({ kind: z.literal('import') }),
  z.object({ kind: z.literal('restore'), fromVersion: z.number().optional() }),
  z.object({ kind: z.literal('cli') }),
  // At most 64 characters (code points, see cleanClientName in core/mcp/protocol.ts): up to 128 UTF-16 units.
  z.object({ kind: z.literal('mcp'), client: z.string().max(128) }),
  z.object({ kind: z.literal('system') }),
]);
export type Provenance = z.infer<typeof Provenance>;
export const FileEntry = z.object({ kind: z.literal('file'), path: z.string(), size: z.number(), created: z.number(), modified: z.number(), version: z.number(), by: Provenance.optional() });
const DirEntry = z.object({ kind: z.literal('dir'), path: z.string(), created: z.number(), modified: z.number() });
export const Entry = z.discriminatedUnion('kind', [FileEntry, DirEntry]);
export type Entry = z.infer<typeof Entry>;

export const UnlockReport = z.object({ rolledBack: z.boolean(), damaged: z.array(z.string()), notices: z.array(z.string()).optional(), noticeKeys: z.array(Keyed).optional() });
export const HistoryEntry = z.object({ version: z.number(), size: z.number(), modified: z.number() });
export const VersionEntry = HistoryEntry.extend({ by: Provenance.optional(), current: z.boolean() });
export type VersionEntry = z.infer<typeof VersionEntry>;
export const TrashEntry = z.object({ path: z.string(), deleted: z.number().optional(), by: Provenance.optional(), versions: z.array(VersionEntry) });
export type TrashEntry = z.infer<typeof TrashEntry>;
/** A memory change by Claude the user has not reviewed yet (see electron/core/review/). */
export const ReviewEntry = z.object({
  path: z.string(),
  kind: z.enum(['new', 'changed', 'deleted', 'conflict']),
  /** The version to look at (a conflict: the one that won, or the edit that outlived a delete). */
  version: z.number(),
  /** The last version the user saw, when still kept: the diff's left side (absent: diff against nothing). */
  reviewedVersion: z.number().optional(),
  by: Provenance,
  /** Where Claude moved the file from. */
  from: z.string().optional(),
  /**
   * A `conflict` (a vault several computers write): changed on two computers at once (`edit`; `versions` were set
   * aside, kept in history), or deleted on one while edited on another (`delete`; `versions`: what the delete removed).
   * `computers`: their names as another computer wrote them (untrusted text). `id`: what marking it acknowledges.
   * `base` (edit): the version both sides started from, when still kept.
   */
  conflict: z.object({ what: z.enum(['edit', 'delete']), id: z.string(), versions: z.array(z.number()), base: z.number().optional(), computers: z.array(z.string()) }).optional(),
});
export type ReviewEntry = z.infer<typeof ReviewEntry>;
/** Where the key a turn would use comes from: ANTHROPIC_API_KEY wins over the one stored in the vault. */
export const ApiKeySource = z.enum(['environment', 'vault', 'none']);
export type ApiKeySource = z.infer<typeof ApiKeySource>;
export const PublicSettings = Settings.extend({ hasApiKey: z.boolean(), apiKeySource: ApiKeySource });
export type PublicSettings = z.infer<typeof PublicSettings>;
export const Conversation = z.object({
  id: z.string(),
  title: z.string(),
  created: z.number(),
  updated: z.number(),
  transcript: z.array(TranscriptEntry),
  /** Absent: the first project. */
  project: z.string().optional(),
  temporary: z.boolean().optional(),
  /** How many entries before `transcript` were left out (asked for only the last ones); absent or 0: it is whole. */
  earlier: z.number().int().min(0).optional(),
  /** The whole conversation's cost in dollars, left-out entries included. */
  costUSD: z.number().optional(),
  /** The model this conversation was set to; absent: the one in Settings. */
  model: z.string().optional(),
  /**
   * Messages with more than one version (a reply regenerated, a message edited): `entry` is the index in the
   * whole transcript of the user message where the versions part, `shown` the version shown (0-based) of
   * `count`; `by` says where the switch goes (on the message for an edit, on the reply for a regeneration).
   * `groups[v]`: the message version (0-based) version `v` begins with; versions with the same message are
   * regenerated replies of it, so the message's switch goes between groups and the reply's within one.
   * Absent when there are none.
   */
  versions: z
    .array(z.object({ entry: z.number().int().min(0), shown: z.number().int().min(0), count: z.number().int().min(2), by: z.enum(['edit', 'regenerate']), groups: z.array(z.number().int().min(0)).optional() }))
    .optional(),
});
export type Conversation = z.infer<typeof Conversation>;

export const deviceId = z.string().regex(/^[0-9a-f]{32}$/);
/** One computer that writes to the vault (core/vault/devices.ts). */
export const DeviceEntry = z.object({ id: deviceId, name: z.string().max(64 * 4), lastWrite: z.number(), current: z.boolean(), forgotten: z.boolean(), behind: z.boolean() });
export type DeviceEntry = z.infer<typeof DeviceEntry>;

/** The vault's folder as the window may know it (`vaultFolder`). */
export const VaultFolder = z.object({ isDefault: z.boolean(), name: z.string().max(1024), fromStart: z.boolean() });
export type VaultFolder = z.infer<typeof VaultFolder>;
