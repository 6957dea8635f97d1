/**
 * Handlers for the review inbox: what Claude changed in a project's memory
 * since the user last looked, and marking exact versions reviewed. Paths are
 * checked by the memory tool's own rules.
 */
import { validateMemoryPath } from '../../core/memory/paths';
import { ReviewInbox } from '../../core/review/inbox';
import { FIRST_PROJECT_ID } from '../../core/projects/store';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function reviewHandlers(s: AppSession): HandlersFor<'reviewList' | 'reviewCounts' | 'reviewMark'> {
  return {
    reviewList: async (opts) => new ReviewInbox(s.unlocked()).list(opts?.project ?? FIRST_PROJECT_ID),
    reviewCounts: async () => {
      const counts = Object.entries(await new ReviewInbox(s.unlocked()).counts()).map(([project, count]) => ({ project, count }));
      return { total: counts.reduce((n, c) => n + c.count, 0), projects: counts };
    },
    reviewMark: async ({ project, items }) => {
      const checked = items.map((i) => ({ path: validateMemoryPath(i.path), version: i.version, ...(i.conflict !== undefined ? { conflict: i.conflict } : {}) }));
      return { marked: await new ReviewInbox(s.unlocked()).mark(project ?? FIRST_PROJECT_ID, checked) };
    },
  };
}
