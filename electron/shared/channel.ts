/**
 * What the window learns about other apps using this memory (MCP clients
 * through `mnemo mcp`, and `mnemo memory`, over the app's local channel): the
 * changes they wait to have approved, the log of their recent calls (never
 * contents), and the ready-to-paste configurations. Zod only, so the renderer
 * can `import type` them.
 */
import { z } from 'zod';
import { ApprovalChange } from './chat';
import { ProjectId } from './projects';
import { Keyed } from './messages';

/** Which app's configuration: Claude Desktop, Claude Code, Cursor, and each one's Windows form. */
export const ConfigTarget = z.enum(['claude-desktop', 'claude-desktop-windows', 'claude-code', 'claude-code-windows', 'cursor', 'cursor-windows']);
export type ConfigTarget = z.infer<typeof ConfigTarget>;

/** One project's configurations, each the text to paste. */
export const ProjectConfigs = z.object({
  project: ProjectId,
  projectName: z.string(),
  /** The name the other app lists the server under. */
  server: z.string(),
  configs: z.record(ConfigTarget, z.string()),
});
export type ProjectConfigs = z.infer<typeof ProjectConfigs>;

/** A memory change another app asks for, held until the user decides (ids minted by main). */
export const OutsideApproval = z.object({
  id: z.string().regex(/^out_[0-9a-f]{24}$/),
  /** Who asks: the MCP client's name, or "mnemo memory". */
  client: z.string().max(64),
  via: z.enum(['mcp', 'cli']),
  project: ProjectId,
  projectName: z.string(),
  command: z.string(),
  path: z.string(),
  newPath: z.string().optional(),
  preview: z.string().optional(),
  /** What the change does to the memory as it is now: an edit's diff, or what a delete removes. */
  change: ApprovalChange.optional(),
  /** When it was asked and when it stops waiting (ms since epoch). */
  asked: z.number(),
  expires: z.number(),
});
export type OutsideApproval = z.infer<typeof OutsideApproval>;

/** One call another app made: who, what, where, when, and whether it worked. Never what was read or written. */
export const ChannelCall = z.object({
  at: z.number(),
  client: z.string().max(64),
  via: z.enum(['mcp', 'cli']),
  project: z.string().max(200),
  command: z.string().max(32),
  path: z.string().max(1100).optional(),
  newPath: z.string().max(1100).optional(),
  ok: z.boolean(),
});
export type ChannelCall = z.infer<typeof ChannelCall>;

/** What one other app may do through the channel, beside the access level: view only, or view and change. */
export const ClientAccess = z.enum(['read-only', 'read-write']);
export type ClientAccess = z.infer<typeof ClientAccess>;

/**
 * An app that has connected, known by the name it gave at MCP `initialize` (or "mnemo memory"). The name is the
 * app's own claim: a rule on it keeps an app from changing memory by mistake, and is no security boundary.
 */
export const KnownClient = z.object({ name: z.string().max(64), access: ClientAccess, firstSeen: z.number() });
export type KnownClient = z.infer<typeof KnownClient>;

/** Whether the channel serves now, and if it could not start, why (a sentence without host paths). */
export const ChannelStatus = z.object({ serving: z.boolean(), connections: z.number(), problem: z.string().optional(), problemKey: Keyed.optional() });
export type ChannelStatus = z.infer<typeof ChannelStatus>;
