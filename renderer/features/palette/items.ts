import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationSummary } from '../../../electron/shared/chat';
import type { Entry } from '../../../electron/shared/ipc-values';
import type { Project } from '../../../electron/shared/projects';
import { call } from '../../lib/api';
import { i18n } from '../../lib/i18n';
import type { PaletteItem } from './filter';

/** The sections of Settings, by their headings' ids, each named by its heading's own catalog key (see renderer/features/settings). */
export const SETTINGS_SECTIONS = [
  ['conn', 'settings:connection.title'],
  ['behaviour', 'settings:claude.title'],
  ['security', 'settings:security.title'],
  ['vault-folder', 'settings:vaultFolder.title'],
  ['other-apps', 'settings:otherApps.title'],
  ['language', 'settings:language.title'],
] as const;

const ACTIONS = [
  ['new', 'palette:action.new'],
  ['temporary', 'palette:action.temporary'],
  ['shortcuts', 'palette:action.shortcuts'],
  ['lock', 'palette:action.lock'],
] as const;

/**
 * Everything the palette offers, in the order it lists them before anything is typed; what the app
 * names itself (kinds, sections, actions) in the window's language, so typing in it finds them.
 */
export function paletteItems(conversations: ConversationSummary[], projects: Project[], memories: Array<{ project: string; entries: Entry[] }>): PaletteItem[] {
  const t = i18n.t;
  const projectName = (id: string | undefined) => projects.find((p) => p.id === (id ?? 'default'))?.name;
  // Projects named only where there is more than one: with a single project the name says nothing.
  const where = (id: string | undefined) => (projects.length > 1 ? projectName(id) : undefined);
  return [
    ...conversations
      // A conversation of a deleted project is hidden until the project is restored, as in the sidebar.
      .filter((c) => projectName(c.project) !== undefined || projects.length === 0)
      .map((c): PaletteItem => ({ key: `conversation-${c.id}`, label: c.title, kind: c.temporary ? t('palette:kind.temporary') : t('palette:kind.conversation'), project: where(c.project), target: { kind: 'conversation', id: c.id } })),
    ...memories.flatMap(({ project, entries }) =>
      entries.flatMap((e): PaletteItem[] => (e.kind === 'file' ? [{ key: `memory-${project}-${e.path}`, label: e.path, kind: t('palette:kind.memory'), project: where(project), target: { kind: 'memory', path: e.path, project } }] : [])),
    ),
    ...projects.map((p): PaletteItem => ({ key: `project-${p.id}`, label: p.name, kind: t('palette:kind.project'), target: { kind: 'project', id: p.id } })),
    ...SETTINGS_SECTIONS.map(([heading, name]): PaletteItem => ({ key: `setting-${heading}`, label: t(name), kind: t('palette:kind.settings'), target: { kind: 'setting', heading } })),
    ...ACTIONS.map(([action, name]): PaletteItem => ({ key: `action-${action}`, label: t(name), kind: t('palette:kind.action'), target: { kind: 'action', action } })),
  ];
}

/**
 * The palette's items, asked for when it opens: conversations and projects,
 * and every project's memories. Whatever cannot be had is left out; the rest
 * is offered all the same.
 */
export function usePaletteItems(): { items: PaletteItem[]; loading: boolean } {
  // Drawn again in the new language if it changes while the palette is open.
  const { i18n: lang } = useTranslation();
  const [data, setData] = useState<Parameters<typeof paletteItems>>();
  useEffect(() => {
    let live = true;
    void (async () => {
      const [conversations, projects] = await Promise.all([call('chatList').catch(() => []), call('projectsList').then((l) => l.projects, () => [] as Project[])]);
      const ids = projects.length ? projects.map((p) => p.id) : ['default'];
      const memories = await Promise.all(ids.map((project) => call('memoryList', { project }).then((entries) => ({ project, entries }), () => ({ project, entries: [] as Entry[] }))));
      if (live) setData([conversations, projects, memories]);
    })();
    return () => void (live = false);
  }, []);
  const language = lang.language;
  // `language` is a dependency though not used inside: the items are said in it.
  const items = useMemo(() => paletteItems(...(data ?? [[], [], []])), [data, language]);
  return { items, loading: data === undefined };
}
