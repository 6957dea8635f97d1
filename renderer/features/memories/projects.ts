import { useCallback, useEffect, useRef, useState } from 'react';
import type { Entry } from '../../../electron/shared/ipc-values';
import type { Project } from '../../../electron/shared/projects';
import { call, messageOf, on } from '../../lib/api';
import { coalesced } from '../../lib/coalesce';
import { i18n } from '../../lib/i18n';

/** The first project's id: its memory is the vault's own `/memories`. */
export const FIRST_PROJECT = 'default';

/**
 * The project list, fetched again whenever `fresh` changes (the section is
 * shown again, the picker is focused): projects are made in the chat sidebar,
 * and no event says so.
 */
export function useProjects(fresh: unknown): [Project[] | undefined, () => void] {
  const [projects, setProjects] = useState<Project[]>();
  const reload = useCallback(() => {
    call('projectsList').then(
      (l) => setProjects(l.projects),
      // Without the list the picker still offers the project shown; the memory calls report what is wrong.
      () => undefined,
    );
  }, []);
  useEffect(reload, [reload, fresh]);
  return [projects, reload];
}

/** A project's name for headings, or a plain statement that it is gone (in the window's language: call from a component that uses useTranslation). */
export function projectName(projects: Project[] | undefined, id: string): string {
  return projects?.find((p) => p.id === id)?.name ?? (projects ? i18n.t('memories:project.deletedName') : '…');
}

/** One project's memory entries, following every change made to that project (by Claude, the CLI or another editor). */
export function useMemoryTree(project: string): { entries: Entry[]; error: string | undefined; refresh: () => void } {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [error, setError] = useState<string>();
  // Only the latest ask may land: an answer for the project picked before (or an older list of this one) that arrives late is dropped.
  const latest = useRef(0);
  const list = useCallback(() => {
    const ask = ++latest.current;
    return call('memoryList', { project }).then(
      (e) => {
        if (ask !== latest.current) return;
        // When the list landed, for the tree benchmark (test/bench/tree.bench.ts) and the browser's performance panel: a project id and a count, no path.
        performance.mark('mnemo:memory-list', { detail: { project, entries: e.length } });
        setEntries(e);
        setError(undefined);
      },
      (e: unknown) => {
        if (ask !== latest.current) return;
        setEntries([]);
        setError(messageOf(e));
      },
    );
  }, [project]);
  const refresh = useCallback(() => void list(), [list]);
  useEffect(() => {
    refresh();
    // A burst of changes lists again once after the list in flight, not once per change.
    const follow = coalesced(list);
    const off = on('memoryChanged', (c) => {
      if ((c.project ?? FIRST_PROJECT) === project) follow.run();
    });
    return () => {
      off();
      follow.stop();
    };
  }, [project, list, refresh]);
  return { entries, error, refresh };
}
