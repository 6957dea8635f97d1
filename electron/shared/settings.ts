import { z } from 'zod';

/**
 * User settings, stored encrypted in the vault's internal namespace under `settings`.
 * Nothing secret lives here: the API key is kept apart (`secrets/api-key`) and the
 * renderer only ever learns whether one is set.
 */
export const GuardMode = z.enum(['block', 'redact', 'allow']);
export type GuardMode = z.infer<typeof GuardMode>;

export const DEFAULT_MEMORY_GUIDANCE = [
  'Keep the memory folder up to date, coherent and organised: update or rename files rather than',
  'duplicating them, and delete what is no longer true. Remember durable facts about the user, their',
  'preferences and ongoing work. Never store passwords, API keys, financial or government identifiers,',
  'health details or anything the user asks you to forget.',
].join(' ');

export const Settings = z.object({
  model: z.string().min(1).max(100).default('claude-sonnet-4-6'),
  maxTokens: z.number().int().min(256).max(128_000).default(4096),
  /** null: the SDK's default endpoint. ANTHROPIC_BASE_URL overrides it. */
  baseURL: z.url({ protocol: /^https?$/ }).nullable().default(null),
  memoryGuidance: z.string().max(10_000).default(DEFAULT_MEMORY_GUIDANCE),
  approvalMode: z.boolean().default(false),
  guardMode: GuardMode.default('block'),
  autoLockMinutes: z.number().int().min(0).max(24 * 60).default(10),
  historyDepth: z.number().int().min(1).max(200).default(20),
  thinking: z.boolean().default(false),
  contextManagement: z
    .object({
      enabled: z.boolean().default(true),
      triggerInputTokens: z.number().int().min(1000).max(1_000_000).default(100_000),
      keepToolUses: z.number().int().min(0).max(100).default(3),
      clearAtLeastTokens: z.number().int().min(0).max(1_000_000).default(5_000),
    })
    .prefault({}),
  compaction: z.boolean().default(false),
});
export type Settings = z.infer<typeof Settings>;

/** Settings with every default applied. */
export function defaultSettings(): Settings {
  return Settings.parse({});
}
