import { z } from 'zod';

/**
 * User settings, stored encrypted in the vault's internal namespace under `settings`.
 * Nothing secret lives here: the API key is kept apart (`secrets/api-key`) and the
 * renderer only ever learns whether one is set.
 */
export const GuardMode = z.enum(['block', 'redact', 'allow']);
export type GuardMode = z.infer<typeof GuardMode>;

/**
 * What other apps (MCP clients through `mnemo mcp`, and `mnemo memory`) may do through the running,
 * unlocked app's local channel: nothing, view only, or view and change. It governs only that channel: a
 * process that has the passphrase can open the vault itself whenever the app is locked or closed.
 */
export const McpAccess = z.enum(['off', 'read-only', 'read-write']);
export type McpAccess = z.infer<typeof McpAccess>;

export const DEFAULT_MEMORY_GUIDANCE = [
  'Keep the memory folder up to date, coherent and organised: update or rename files rather than',
  'duplicating them, and delete what is no longer true. Remember durable facts about the user, their',
  'preferences and ongoing work. Never store passwords, API keys, financial or government identifiers,',
  'health details or anything the user asks you to forget.',
].join(' ');

/** How many requests one turn makes at most by default (a server that answers every request with another tool call stops here). */
export const DEFAULT_MAX_TOOL_ROUNDS = 30;

/** Each field's rule, without defaults: the patch schema is built from these so an absent field stays absent. */
/** A model id as a setting or a conversation's choice holds it. */
export const ModelId = z.string().min(1).max(100);

const fields = {
  model: ModelId,
  maxTokens: z.number().int().min(256).max(128_000),
  memoryGuidance: z.string().max(10_000),
  approvalMode: z.boolean(),
  guardMode: GuardMode,
  autoLockMinutes: z.number().int().min(0).max(24 * 60),
  historyDepth: z.number().int().min(1).max(200),
  thinking: z.boolean(),
  /** Name a conversation with a small model after its first exchange (one short request; never for temporary chats). */
  autoTitle: z.boolean(),
  compaction: z.boolean(),
  /** Requests one turn may make while Claude keeps calling tools; past it the turn stops and the window offers Continue. */
  maxToolRounds: z.number().int().min(1).max(500),
  mcpAccess: McpAccess,
  /** An app that connects for the first time may only view until the user lets it change memory (Settings). */
  mcpNewClientsReadOnly: z.boolean(),
};
const contextFields = {
  enabled: z.boolean(),
  triggerInputTokens: z.number().int().min(1000).max(1_000_000),
  keepToolUses: z.number().int().min(0).max(100),
  clearAtLeastTokens: z.number().int().min(0).max(1_000_000),
};

/**
 * The stored settings with their defaults. There is no base URL: the API
 * endpoint comes only from ANTHROPIC_BASE_URL, never from the window. A
 * stored `baseURL` from an older version is stripped on load.
 */
export const Settings = z.object({
  model: fields.model.default('claude-sonnet-4-6'),
  maxTokens: fields.maxTokens.default(4096),
  memoryGuidance: fields.memoryGuidance.default(DEFAULT_MEMORY_GUIDANCE),
  approvalMode: fields.approvalMode.default(false),
  guardMode: fields.guardMode.default('block'),
  autoLockMinutes: fields.autoLockMinutes.default(10),
  historyDepth: fields.historyDepth.default(20),
  thinking: fields.thinking.default(false),
  autoTitle: fields.autoTitle.default(true),
  contextManagement: z
    .object({
      enabled: contextFields.enabled.default(true),
      triggerInputTokens: contextFields.triggerInputTokens.default(100_000),
      keepToolUses: contextFields.keepToolUses.default(3),
      clearAtLeastTokens: contextFields.clearAtLeastTokens.default(5_000),
    })
    .prefault({}),
  compaction: fields.compaction.default(false),
  maxToolRounds: fields.maxToolRounds.default(DEFAULT_MAX_TOOL_ROUNDS),
  // Off until the user turns it on: the channel is the one way to reach memory without the passphrase
  // (any process running as this user can read its token), so it is opened only by the user's choice.
  mcpAccess: fields.mcpAccess.default('off'),
  mcpNewClientsReadOnly: fields.mcpNewClientsReadOnly.default(false),
});

/**
 * A settings update: only the fields given, none filled in. (zod's `.partial()`
 * of `Settings` would still apply each absent field's default and so reset it.)
 */
export const SettingsPatch = z.object({ ...fields, contextManagement: z.object(contextFields).partial() }).partial();
export type SettingsPatch = z.infer<typeof SettingsPatch>;
export type Settings = z.infer<typeof Settings>;

/** Settings with every default applied. */
export function defaultSettings(): Settings {
  return Settings.parse({});
}
