import { useEffect, useState } from 'react';
import type { ConversationSummary } from '../../../electron/shared/chat';
import type { Entry } from '../../../electron/shared/ipc';
import type { Project } from '../../../electron/shared/projects';
import { call } from '../../lib/api';
import type { PaletteItem } from './filter';

/** The sections of Settings, by their headings' ids (see renderer/features/settings). */
export const SETTINGS_SECTIONS: ReadonlyArray<[heading: string, name: string]> = [
  ['conn', 'Connection'],
  ['behaviour', 'Claude and memory'],
  ['security', 'Security'],
  ['other-apps', 'Use this memory in other apps'],
  ['language', 'Language'],
];

const ACTIONS: PaletteItem[] = [
  { key: 'action-new', label: 'New conversation', kind: 'Action', target: { kind: 'action', action: 'new' } },
  { key: 'action-temporary', label: 'New temporary chat', kind: 'Action', target: { kind: 'action', action: 'temporary' } },
  { key: 'action-shortcuts', label: 'Keyboard shortcuts', kind: 'Action', target: { kind: 'action', action: 'shortcuts' } },
  { key: 'action-lock', label: 'Lock', kind: 'Action', target: { kind: 'action', action: 'lock' } },
];

/** Everything the palette offers, in the order it lists them before anything is typed. */
export function paletteItems(conversations: ConversationSummary[], projects: Project[], memories: Array<{ project: string; entries: Entry[] }>): PaletteItem[] {
  const projectName = (id: string | undefined) => projects.find((p) => p.id === (id ?? 'default'))?.name;
  // Projects named only where there is more than one: with a single project the name says nothing.
  const where = (id: string | undefined) => (projects.length > 1 && projectName(id) ? `in ${projectName(id)}` : undefined);
  return [
    ...conversations
      // A conversation of a deleted project is hidden until the project is restored, as in the sidebar.
      .filter((c) => projectName(c.project) !== undefined || projects.length === 0)
      .map((c): PaletteItem => ({ key: `conversation-${c.id}`, label: c.title, kind: c.temporary ? 'Temporary chat' : 'Conversation', detail: where(c.project), target: { kind: 'conversation', id: c.id } })),
    ...memories.flatMap(({ project, entries }) =>
      entries.flatMap((e): PaletteItem[] => (e.kind === 'file' ? [{ key: `memory-${project}-${e.path}`, label: e.path, kind: 'Memory', detail: where(project), target: { kind: 'memory', path: e.path, project } }] : [])),
    ),
    ...projects.map((p): PaletteItem => ({ key: `project-${p.id}`, label: p.name, kind: 'Project', target: { kind: 'project', id: p.id } })),
    ...SETTINGS_SECTIONS.map(([heading, name]): PaletteItem => ({ key: `setting-${heading}`, label: name, kind: 'Settings', target: { kind: 'setting', heading } })),
    ...ACTIONS,
  ];
}

/**
 * The palette's items, asked for when it opens: conversations and projects,
 * and every project's memories. Whatever cannot be had is left out; the rest
 * is offered all the same.
 */
export function usePaletteItems(): { items: PaletteItem[]; loading: boolean } {
  const [state, setState] = useState<{ items: PaletteItem[]; loading: boolean }>({ items: paletteItems([], [], []), loading: true });
  useEffect(() => {
    let live = true;
    void (async () => {
      const [conversations, projects] = await Promise.all([call('chatList').catch(() => []), call('projectsList').then((l) => l.projects, () => [] as Project[])]);
      const ids = projects.length ? projects.map((p) => p.id) : ['default'];
      const memories = await Promise.all(ids.map((project) => call('memoryList', { project }).then((entries) => ({ project, entries }), () => ({ project, entries: [] as Entry[] }))));
      if (live) setState({ items: paletteItems(conversations, projects, memories), loading: false });
    })();
    return () => void (live = false);
  }, []);
  return state;
}
