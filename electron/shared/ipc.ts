/**
 * The one contract between the renderer and the main process: every call
 * (with zod schemas for its arguments and result) and every event. Main
 * registers exactly one handler per call; the preload exposes exactly one
 * method per call; the renderer's `window.mnemo` type is derived from here.
 * The records calls return are in ipc-values.ts.
 */
import { z } from 'zod';
import { AttachmentMediaType, AttachmentRef, ChatEvent, ConversationSummary, SnippetMarks } from './chat';
import { ChannelCall, ChannelStatus, ClientAccess, ConfigTarget, KnownClient, OutsideApproval, ProjectConfigs } from './channel';
import { DraftPut, Drafts } from './drafts';
import { ApiKeySource, Conversation, DeviceEntry, deviceId, Entry, FileEntry, HistoryEntry, PublicSettings, ReviewEntry, TrashEntry, UnlockReport, VaultFolder, VersionEntry } from './ipc-values';
import { DevicePrefs } from './languages';
import { boundedText, MAX_MEMORY_TEXT_CHARS } from './limits';
import { Keyed, Said, type MessageParams } from './messages';
import { ModelId, SettingsPatch } from './settings';
import { ContextUse, ModelList, Project, ProjectId, ProjectList, ProjectName } from './projects';

export type { Keyed, MessageParam, MessageParams } from './messages';
/**
 * A failure as it crosses the boundary: `code` for programs, `message` in English (logs, older callers),
 * and, where main has one, the catalog key (`errors:…`) and its parameters, for the window to say it in
 * the user's language (see electron/core/i18n/message.ts).
 */
export interface ResultError {
  code: string;
  message: string;
  key?: string;
  params?: MessageParams;
}
/** What crosses the boundary instead of a thrown error. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ResultError };

const path = z.string().min(1).max(2048);
const passphrase = z.string().min(1).max(1024);
const id = z.string().regex(/^[0-9a-f]{16,32}$/);
const project = ProjectId.optional();
/** A memory's text from the window: bounded here by the memory tool's per-file limit, checked exactly (bytes, total) in main. */
const memoryText = boundedText(MAX_MEMORY_TEXT_CHARS, {
  message: 'No change was made: the text is over the 1 MB limit for one memory file. Split it over several files, or shorten it.',
  key: 'errors:memory.textOverLimit',
});
/** Base64 of the largest attachment (23 MB, a PDF; see electron/core/chat/attachments.ts). */
const ATTACHMENT_BASE64_MAX = Math.ceil(23_000_000 / 3) * 4;

const none = z.tuple([]);
const one = <T extends z.ZodType>(t: T) => z.tuple([t]);
const call = <A extends z.ZodTuple, R extends z.ZodType>(channel: string, args: A, result: R) => ({ channel, args, result });

/** Every call: method name → channel, argument tuple, result. */
export const CALLS = {
  vaultStatus: call('vault:status', none, z.object({ exists: z.boolean(), unlocked: z.boolean(), rolledBack: z.boolean() })),
  vaultCreate: call('vault:create', one(z.object({ passphrase })), z.object({ recoveryKey: z.string() })),
  vaultUnlock: call('vault:unlock', one(z.object({ passphrase })), UnlockReport),
  vaultUnlockWithRecoveryKey: call('vault:unlock-recovery', one(z.object({ recoveryKey: z.string().min(1).max(200) })), UnlockReport),
  vaultLock: call('vault:lock', none, z.null()),
  vaultChangePassphrase: call('vault:change-passphrase', one(z.object({ current: passphrase, next: passphrase })), z.null()),
  /** After a recovery-key unlock only: a new passphrase without the forgotten one (main refuses it otherwise, and refuses weak ones). */
  vaultSetPassphrase: call('vault:set-passphrase', one(z.object({ next: passphrase })), z.null()),
  /** Keeps a vault reported as rolled back as it is now; the alarm stays up until this, and it needs the passphrase. */
  vaultAcceptRollback: call('vault:accept-rollback', one(z.object({ passphrase })), z.null()),
  /** Re-derives the passphrase's key at a higher Argon2id cost (measured on this computer); needs the passphrase. */
  vaultStrengthenKdf: call('vault:strengthen-kdf', one(z.object({ passphrase })), z.object({ opslimit: z.number(), memlimitMiB: z.number() })),
  vaultNewRecoveryKey: call('vault:new-recovery-key', one(z.object({ passphrase })), z.object({ recoveryKey: z.string() })),
  vaultRotateKeys: call('vault:rotate-keys', one(z.object({ passphrase })), z.object({ recoveryKey: z.string() })),
  vaultVerify: call('vault:verify', none, z.object({ ok: z.boolean(), problems: z.array(z.string()), waiting: z.array(z.string()).optional() })),
  vaultBackup: call('vault:backup', none, z.object({ saved: z.boolean() })),
  vaultExportPlaintext: call('vault:export-plaintext', one(z.object({ passphrase })), z.object({ saved: z.boolean(), count: z.number() })),
  /**
   * The vault's folder as the window may know it: whether it is the app's default one, and its last name only (never
   * a host path). `fromStart`: it was given when the app started (`--vault` or MNEMO_VAULT).
   */
  vaultFolder: call('vault:folder', none, VaultFolder),
  /**
   * "Open a vault…": main shows its own folder picker (the window never names a folder). A folder holding a vault
   * becomes this computer's vault folder, and the window shows its unlock screen; an empty one is offered for a new
   * vault (and kept once it is made); anything else is refused, changing nothing. An unlocked vault is locked first.
   * `outcome`: `cancelled` (nothing changed), `vault` or `empty`.
   */
  vaultOpenFolder: call('vault:open-folder', none, z.object({ outcome: z.enum(['cancelled', 'vault', 'empty']), folder: VaultFolder })),
  /** Back to the app's own vault folder, forgetting the one chosen (an unlocked vault is locked first). */
  vaultUseDefaultFolder: call('vault:use-default-folder', none, VaultFolder),
  /**
   * The computers that write to this vault (several when it is in a synced folder), read again from the folder first.
   * `shared`: false for a vault only this computer can write (format 1), whose list is empty.
   */
  devicesList: call('devices:list', none, z.object({ shared: z.boolean(), devices: z.array(DeviceEntry) })),
  /** Gives a computer a name every computer shows. */
  devicesRename: call('devices:rename', one(z.object({ id: deviceId, name: z.string().max(1000) })), z.null()),
  /** "Forget this computer" (not this one): the others stop keeping old values for it. */
  devicesForget: call('devices:forget', one(z.object({ id: deviceId })), z.null()),
  /** Copies the recovery key main last handed to the window (main holds it; the window never writes it to the clipboard). */
  clipboardWriteRecoveryKey: call('clipboard:write-recovery-key', none, z.object({ copied: z.boolean() })),
  /** Asks main to open a link; main decides (see electron/main/links.ts). */
  openLink: call('link:open', one(z.object({ href: z.string().max(8192) })), z.object({ opened: z.boolean() })),
  // How guessable a passphrase is (zxcvbn, judged in main): the window's meter shows it; create and change refuse weak ones.
  passphraseStrength: call(
    'vault:passphrase-strength',
    one(z.object({ passphrase })),
    z.object({
      score: z.number().int().min(0).max(4),
      acceptable: z.boolean(),
      warning: z.string(),
      suggestions: z.array(z.string()),
      // The same feedback as ids (see core/passphrase-strength.ts), which the window says in its language.
      feedback: z.object({ warning: z.string().optional(), suggestions: z.array(z.string()) }),
    }),
  ),

  /** This device's preferences (the Language setting): kept by main outside the vault, so they hold on the unlock screen too. */
  prefsGet: call('prefs:get', none, DevicePrefs),
  /** Changes the preferences given (the rest stay); answers with all of them. */
  prefsSet: call('prefs:set', one(DevicePrefs.partial()), DevicePrefs),

  // Every memory call works in one project's memory (`project`; default: the first project).
  memoryList: call('memory:list', z.tuple([z.object({ project }).optional()]), z.array(Entry)),
  memoryRead: call('memory:read', one(z.object({ path, project })), z.object({ text: z.string(), version: z.number() })),
  memoryWrite: call(
    'memory:write',
    one(z.object({ path, text: memoryText, mode: z.enum(['create', 'update']), expectedVersion: z.number().int().optional(), project })),
    FileEntry,
  ),
  memoryMkdir: call('memory:mkdir', one(z.object({ path, project })), z.null()),
  memoryRename: call('memory:rename', one(z.object({ from: path, to: path, project })), z.null()),
  memoryDelete: call('memory:delete', one(z.object({ path, project })), z.null()),
  memoryHistory: call('memory:history', one(z.object({ path, project })), z.array(HistoryEntry)),
  memoryReadVersion: call('memory:read-version', one(z.object({ path, version: z.number().int().min(1), project })), z.object({ text: z.string() })),
  memoryRestore: call('memory:restore', one(z.object({ path, version: z.number().int().min(1), project })), FileEntry),
  /** Every kept version of a memory and its current one (last), each with who wrote it. */
  memoryVersions: call('memory:versions', one(z.object({ path, project })), z.array(VersionEntry)),
  /** Deleted memories whose versions are still kept. */
  memoryTrash: call('memory:trash', z.tuple([z.object({ project }).optional()]), z.array(TrashEntry)),
  /** Brings a deleted memory back as a new version (recorded as a restore); EXISTS if something now occupies its path. */
  memoryTrashRestore: call('memory:trash-restore', one(z.object({ path, version: z.number().int().min(1).optional(), project })), FileEntry),
  /** Permanently removes deleted memories' versions (all of the project's trash, or the listed paths). */
  memoryTrashEmpty: call('memory:trash-empty', one(z.object({ paths: z.array(path).max(10_000).optional(), project })), z.object({ removed: z.number() })),
  /** Case and accents ignored; `snippet` is clean text around the match (line 0: the path matched), `marks` where the query is in it. */
  memorySearch: call('memory:search', one(z.object({ query: z.string().min(1).max(500), project })), z.array(z.object({ path: z.string(), line: z.number(), snippet: z.string(), marks: SnippetMarks.optional() }))),
  /** Moves (with its history) or copies one memory file into another project's memory. */
  memoryTransfer: call(
    'memory:transfer',
    one(z.object({ fromProject: ProjectId, path, toProject: ProjectId, toPath: path.optional(), mode: z.enum(['move', 'copy']) })),
    FileEntry,
  ),

  /** What Claude changed in a project's memory since the user last reviewed it. */
  reviewList: call('review:list', z.tuple([z.object({ project }).optional()]), z.array(ReviewEntry)),
  /** How many changes wait for review, in all and per live project. */
  reviewCounts: call('review:counts', none, z.object({ total: z.number(), projects: z.array(z.object({ project: ProjectId, count: z.number() })) })),
  /** Marks exactly these versions reviewed (a change made since stays listed). */
  reviewMark: call(
    'review:mark',
    one(z.object({ project, items: z.array(z.object({ path, version: z.number().int().min(1), conflict: z.string().max(4096).optional() })).min(1).max(10_000) })),
    z.object({ marked: z.number() }),
  ),

  projectsList: call('projects:list', none, ProjectList),
  projectsCreate: call('projects:create', one(z.object({ name: ProjectName })), Project),
  projectsRename: call('projects:rename', one(z.object({ id: ProjectId, name: ProjectName })), Project),
  /** Takes a project off the list; its memories and conversations stay in the vault until projectsRestore. The window asks first. */
  projectsDelete: call('projects:delete', one(z.object({ id: ProjectId })), z.null()),
  projectsRestore: call('projects:restore', one(z.object({ id: ProjectId })), Project),

  /** The models the API offers, kept in the vault; `refresh` asks the API again. */
  modelsList: call('models:list', z.tuple([z.object({ refresh: z.boolean().optional() }).optional()]), ModelList),

  settingsGet: call('settings:get', none, PublicSettings),
  /** A change that weakens a protection needs `passphrase` or the user's OK in main's own dialog (else NEEDS_CONSENT, nothing changed). */
  settingsSet: call('settings:set', one(SettingsPatch.extend({ passphrase: passphrase.optional() })), PublicSettings),
  /**
   * Replacing or removing a stored key needs `passphrase` or the user's OK in main's own dialog; a first key does not.
   * With `check`, main first asks the API whether it accepts the key: a refused key fails with KEY_REFUSED, one that
   * could not be checked (network down, server error) with KEY_UNCHECKED, and neither is saved.
   */
  settingsSetApiKey: call(
    'settings:set-api-key',
    one(z.object({ apiKey: z.string().max(500).nullable(), passphrase: passphrase.optional(), check: z.boolean().optional() })),
    z.object({ hasApiKey: z.boolean(), apiKeySource: ApiKeySource }),
  ),
  settingsTestConnection: call('settings:test-connection', none, Said.extend({ ok: z.boolean() })),

  /** Stored conversations and this session's temporary chats; each names its project (absent: the first). */
  chatList: call('chat:list', none, z.array(ConversationSummary)),
  /** A new conversation in `project` (default: the first); `temporary` keeps it in main's memory only and lets Claude read but not change memory. */
  chatCreate: call('chat:create', z.tuple([z.object({ project, temporary: z.boolean().optional(), model: ModelId.optional() }).optional()]), ConversationSummary),
  /**
   * A conversation; with `tail`, only its last `tail` entries (a long one opens without sending the whole
   * transcript); with `from`, its entries from that index on (a reload that keeps what is shown).
   */
  chatGet: call('chat:get', one(z.object({ id, tail: z.number().int().min(1).max(1_000_000).optional(), from: z.number().int().min(0).max(1_000_000).optional() })), Conversation),
  chatRename: call('chat:rename', one(z.object({ id, title: z.string().min(1).max(200) })), z.null()),
  /** The model this conversation uses (picked beside the message box); null: the one in Settings. */
  chatSetModel: call('chat:set-model', one(z.object({ id, model: ModelId.nullable() })), z.null()),
  chatDelete: call('chat:delete', one(z.object({ id })), z.null()),
  /** Case and accents ignored; `snippet` is clean text around the first match, `marks` where the query is in it. */
  chatSearch: call('chat:search', one(z.object({ query: z.string().min(1).max(500) })), z.array(ConversationSummary.extend({ snippet: z.string(), marks: SnippetMarks.optional() }))),
  /** Pins or unpins, archives or unarchives a conversation (a flag left out stays as it is). */
  chatSetFlags: call('chat:set-flags', one(z.object({ id, pinned: z.boolean().optional(), archived: z.boolean().optional() }).refine((f) => f.pinned !== undefined || f.archived !== undefined, 'Say what to change: pinned or archived.')), z.null()),
  /** `attachments`: ids from chatAttachPick/chatAttachData for this conversation, sent with the message. */
  chatSend: call(
    'chat:send',
    // Words, files or both: a message of attachments alone has no text.
    // `replace`: the transcript index of an earlier user message this one is sent in place of (an edit); that
    // message and all after it stay as the other version, and its attachments go again with the new one.
    one(
      z
        .object({ id, text: z.string().max(100_000), attachments: z.array(id).max(100).optional(), replace: z.number().int().min(0).max(1_000_000).optional() })
        .refine((m) => m.text.trim() !== '' || (m.attachments?.length ?? 0) > 0 || m.replace !== undefined, 'A message needs words or an attachment.'),
    ),
    z.object({ turnId: z.string() }),
  ),
  /** A new reply to the user message at transcript index `entry`: that exchange and all after it stay as the other version. */
  chatRegenerate: call('chat:regenerate', one(z.object({ id, entry: z.number().int().min(0).max(1_000_000) })), z.object({ turnId: z.string() })),
  /** Shows version `version` (0-based) of the message at transcript index `entry`; the conversation comes back through chatGet. */
  chatShowVersion: call('chat:show-version', one(z.object({ id, entry: z.number().int().min(0).max(1_000_000), version: z.number().int().min(0).max(1000) })), z.null()),
  /** Opens main's file dialog and holds the chosen files for the conversation's next message; refused ones come back as messages. */
  chatAttachPick: call('chat:attach-pick', one(z.object({ id })), z.object({ added: z.array(AttachmentRef), refused: z.array(z.string()), refusedKeys: z.array(Keyed).optional() })),
  /**
   * Holds a dropped or pasted file for the next message. `data` is the file's bytes in base64 (what both the
   * preload and the test harness pass unchanged), at most the largest attachment there is; main checks the rest.
   */
  chatAttachData: call('chat:attach-data', one(z.object({ id, name: z.string().max(1000), data: z.string().max(ATTACHMENT_BASE64_MAX).regex(/^[A-Za-z0-9+/]*={0,2}$/) })), AttachmentRef),
  /** Lets go of attachments not sent after all. */
  chatAttachDrop: call('chat:attach-drop', one(z.object({ id, attachmentIds: z.array(id).max(100) })), z.null()),
  /** A sent attachment's bytes (base64), for a thumbnail. */
  chatAttachmentGet: call('chat:attachment-get', one(z.object({ conversationId: id, attachmentId: id })), z.object({ mediaType: AttachmentMediaType, data: z.string() })),
  chatStop: call('chat:stop', one(z.object({ turnId: z.string() })), z.null()),
  chatApprove: call('chat:approve', one(z.object({ turnId: z.string(), callId: z.string(), allow: z.boolean() })), z.null()),
  /** The taken-back message's text, and its attachments held again for the next message (as if just attached). */
  chatRewind: call('chat:rewind', one(z.object({ id })), z.object({ text: z.string(), attachments: z.array(AttachmentRef).optional() })),
  /** Carries on a conversation whose last reply the round limit stopped: its next rounds, as a new turn. */
  chatContinue: call('chat:continue', one(z.object({ id })), z.object({ turnId: z.string() })),
  /**
   * `created`: the chip's change was a create (the memory tool's create never replaces a file), undone by removing the
   * file even when its version is past 1 (a path re-created after a delete continues the deleted file's numbers).
   */
  chatUndo: call('chat:undo', one(z.object({ path, version: z.number().int().min(1), project, created: z.boolean().optional() })), z.object({ restored: z.boolean() })),
  /** Tokens the conversation uses of its model's context window, for the context meter. */
  chatContext: call('chat:context', one(z.object({ id })), ContextUse),
  /** Saves the conversation as Markdown (memory operations included) where the user picks in main's save dialog. */
  chatExport: call('chat:export', one(z.object({ id })), z.object({ saved: z.boolean() })),

  /** Sets (or with null discards) the window's unsaved memory edit or chat message; main keeps it encrypted in the vault across a lock. */
  draftsPut: call('drafts:put', one(DraftPut), z.null()),
  /** The drafts to offer back after an unlock (and any set since). */
  draftsGet: call('drafts:get', none, Drafts),

  // Other apps (MCP clients through `mnemo mcp`, and `mnemo memory`) over the app's local channel.
  /** Whether the channel serves now, and why not if it could not start. */
  channelStatus: call('channel:status', none, ChannelStatus),
  /** The ready-to-paste configuration for each live project and app, built in main (never with a passphrase or a host path). */
  channelConfigs: call('channel:configs', one(z.object({ readOnly: z.boolean() })), z.array(ProjectConfigs)),
  /** Copies one of those configurations to the clipboard (main builds the text; the window cannot choose it). */
  channelCopyConfig: call('channel:copy-config', one(z.object({ project: ProjectId, target: ConfigTarget, readOnly: z.boolean() })), z.object({ copied: z.boolean() })),
  /** The last calls other apps made (who, what, where, when; never contents), newest first. */
  channelLog: call('channel:log', none, z.array(ChannelCall)),
  /** The apps that have connected, by the name they gave, with what each may do (view only, or view and change). */
  channelClients: call('channel:clients', none, z.array(KnownClient)),
  /** Sets what one app may do: narrowing at once; letting it change memory needs the passphrase or main's own OK. */
  channelSetClientAccess: call('channel:set-client-access', one(z.object({ client: z.string().max(128), access: ClientAccess, passphrase: passphrase.optional() })), z.array(KnownClient)),
  /** Forgets a known app (it is new again at its next connection); the passphrase when that lets it change memory. */
  channelForgetClient: call('channel:forget-client', one(z.object({ client: z.string().max(128), passphrase: passphrase.optional() })), z.array(KnownClient)),
  /** The changes other apps wait to have approved (approval mode). */
  channelPending: call('channel:pending', none, z.array(OutsideApproval)),
  /** The user's decision on a change another app asks for; NOT_FOUND once it no longer waits. */
  channelDecide: call('channel:decide', one(z.object({ id: z.string().regex(/^out_[0-9a-f]{24}$/), allow: z.boolean() })), z.null()),
} as const;

export type CallName = keyof typeof CALLS;
export const CALL_NAMES = Object.keys(CALLS) as CallName[];
export type CallArgs<K extends CallName> = z.infer<(typeof CALLS)[K]['args']>;
export type CallResult<K extends CallName> = z.infer<(typeof CALLS)[K]['result']>;

/** Main → renderer events. */
export const EVENTS = {
  vaultLocked: { channel: 'event:vault-locked', payload: z.object({ reason: z.enum(['user', 'idle', 'system', 'header']) }) },
  memoryChanged: {
    channel: 'event:memory-changed',
    payload: z.object({
      op: z.enum(['write', 'mkdir', 'delete', 'rename']),
      path: z.string(),
      newPath: z.string().optional(),
      version: z.number().optional(),
      source: z.enum(['claude', 'user', 'cli', 'system']),
      /** The project whose memory changed (paths are that project's `/memories…`); absent: the first project. */
      project: ProjectId.optional(),
    }),
  },
  /** What other computers wrote arrived (a vault several computers write): lists read from the vault are read again. */
  /** What another computer wrote arrived; `notices`: what the user must be told of it now (a fork found, say). */
  vaultSynced: { channel: 'event:vault-synced', payload: z.object({ notices: z.array(z.string()).max(16).optional(), noticeKeys: z.array(Keyed).max(16).optional() }) },
  chatEvent: { channel: 'event:chat', payload: z.object({ turnId: z.string(), conversationId: z.string(), event: ChatEvent }) },
  /** A conversation was named by a small model after its first exchange. */
  chatTitled: { channel: 'event:chat-titled', payload: z.object({ conversationId: z.string(), title: z.string() }) },
  /** Sent before a lock wipes the keys: these drafts could not be written into the vault, so the window keeps them (and says why). */
  draftsNotSaved: { channel: 'event:drafts-not-saved', payload: Said.extend({ drafts: Drafts }) },
  /** Every change other apps wait to have approved, sent whenever the list changes (asked, decided, timed out, withdrawn by the app that asked, ended by a lock). */
  channelApprovals: { channel: 'event:channel-approvals', payload: z.object({ pending: z.array(OutsideApproval) }) },
  /** The call log changed (newest first). */
  channelCalls: { channel: 'event:channel-calls', payload: z.object({ calls: z.array(ChannelCall) }) },
} as const;

export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
export type EventPayload<K extends EventName> = z.infer<(typeof EVENTS)[K]['payload']>;

/** The API the renderer sees as `window.mnemo`: one method per call, plus event subscription. */
export type MnemoApi = { [K in CallName]: (...args: CallArgs<K>) => Promise<Result<CallResult<K>>> } & {
  on<K extends EventName>(event: K, listener: (payload: EventPayload<K>) => void): () => void;
};

/**
 * Builds the API object from the contract with one named method per call. The
 * preload (over ipcRenderer) and the test harness (over exposeBinding) both use
 * it, so the two cannot drift.
 */
export function buildApi(invoke: (channel: string, args: unknown[]) => Promise<unknown>, subscribe: (channel: string, listener: (payload: unknown) => void) => () => void): MnemoApi {
  const api: Record<string, unknown> = {};
  for (const name of CALL_NAMES) api[name] = (...args: unknown[]) => invoke(CALLS[name].channel, args);
  api.on = (event: EventName, listener: (payload: unknown) => void) => subscribe(EVENTS[event].channel, listener);
  return api as MnemoApi;
}
