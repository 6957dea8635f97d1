/**
 * The shapes of projects, models, the context meter and conversation export
 * as they cross the IPC boundary. Zod only, so the renderer can `import type` them.
 */
import { z } from 'zod';

/** A project id: the first project's is `default`, every other one 16 hex characters. */
export const ProjectId = z.string().regex(/^(default|[0-9a-f]{16})$/);

export const Project = z.object({ id: ProjectId, name: z.string(), created: z.number() });
export type Project = z.infer<typeof Project>;

export const DeletedProject = Project.extend({ deleted: z.number() });
export type DeletedProject = z.infer<typeof DeletedProject>;

export const ProjectList = z.object({ projects: z.array(Project), deleted: z.array(DeletedProject) });
export type ProjectList = z.infer<typeof ProjectList>;

/** A name as typed; the full rules (no control characters, unique) are checked in main with a clear message. */
export const ProjectName = z.string().min(1).max(400);

export const ModelInfo = z.object({
  id: z.string(),
  displayName: z.string(),
  /** Input tokens the model accepts. */
  contextWindow: z.number(),
  /** Where its list price sits among Claude's models (by input price); absent when the price is unknown. Worked out when listed, never stored. */
  priceTier: z.enum(['economy', 'standard', 'premium']).optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export const ModelList = z.object({ models: z.array(ModelInfo), fetched: z.number() });
export type ModelList = z.infer<typeof ModelList>;

/** The context meter of one conversation: tokens used of the model's window. */
export const ContextUse = z.object({
  used: z.number(),
  window: z.number(),
  model: z.string(),
  /** Where `used` comes from: the API's count of the history as it would be sent, the last reply's usage, or nothing yet. */
  source: z.enum(['count', 'usage', 'none']),
});
export type ContextUse = z.infer<typeof ContextUse>;
