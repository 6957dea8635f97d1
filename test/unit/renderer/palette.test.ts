/** The "Go to" palette: what it offers and how typing narrows it (case and accents ignored). */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConversationSummary } from '../../../electron/shared/chat';
import type { Entry } from '../../../electron/shared/ipc-values';
import { filterItems, fold, type PaletteItem } from '../../../renderer/features/palette/filter';
import { paletteItems } from '../../../renderer/features/palette/items';
import { startTestI18n } from '../i18n/window-i18n';

const item = (label: string, kind = 'Conversation'): PaletteItem => ({ key: label, label, kind, target: { kind: 'conversation', id: label } });
const labels = (items: PaletteItem[]) => items.map((i) => i.label);

describe('fold', () => {
  it('ignores case, accents and compatibility forms', () => {
    expect(fold('Café Crème')).toBe('cafe creme');
    expect(fold('ÉCOLE')).toBe('ecole');
    expect(fold('Straße')).toBe('strasse');
    expect(fold('İstanbul')).toBe('istanbul');
    expect(fold('ｆｕｌｌ')).toBe('full');
    expect(fold('Ångström')).toBe('angstrom');
  });
});

describe('filterItems', () => {
  const items = ['Trip to Lisbon', 'Café notes', '/memories/recipes/crème brûlée.md', 'Résumé review', 'Lisbon café list', 'Settings'].map((l) => item(l));

  it('an empty query keeps every item in its order', () => {
    expect(labels(filterItems(items, ''))).toEqual(labels(items));
    expect(labels(filterItems(items, '   '))).toEqual(labels(items));
  });

  it('matches ignoring case and accents, both ways', () => {
    expect(labels(filterItems(items, 'cafe'))).toEqual(['Café notes', 'Lisbon café list']);
    expect(labels(filterItems(items, 'CAFÉ'))).toEqual(['Café notes', 'Lisbon café list']);
    expect(labels(filterItems(items, 'creme brulee'))).toEqual(['/memories/recipes/crème brûlée.md']);
    expect(labels(filterItems(items, 'resume'))).toEqual(['Résumé review']);
  });

  it('needs every word, in any order', () => {
    expect(labels(filterItems(items, 'lisbon trip'))).toEqual(['Trip to Lisbon']);
    expect(labels(filterItems(items, 'lisbon nothing'))).toEqual([]);
  });

  it('puts a match at the start before one at a word start, before one inside a word; ties keep their order', () => {
    const ranked = [item('a lisbon'), item('xlisbonx'), item('lisbon b'), item('/memories/lisbon.md'), item('lisbon a')];
    expect(labels(filterItems(ranked, 'lisbon'))).toEqual(['lisbon b', 'lisbon a', 'a lisbon', '/memories/lisbon.md', 'xlisbonx']);
  });

  it('gives at most `limit` results', () => {
    const many = Array.from({ length: 120 }, (_, i) => item(`note ${i}`));
    expect(filterItems(many, 'note')).toHaveLength(50);
    expect(filterItems(many, 'note', 10)).toHaveLength(10);
  });
});

describe('paletteItems', () => {
  // The app's own names (kinds, sections, actions) are said in the window's language: English here.
  beforeAll(() => startTestI18n('en'));
  const conv = (id: string, title: string, project?: string, temporary?: boolean): ConversationSummary => ({ id, title, created: 1, updated: 1, messageCount: 2, ...(project ? { project } : {}), ...(temporary ? { temporary } : {}) });
  const file = (path: string): Entry => ({ kind: 'file', path, size: 1, created: 1, modified: 1, version: 1 });
  const dir = (path: string): Entry => ({ kind: 'dir', path, created: 1, modified: 1 });

  it('offers conversations, memory files (not folders), projects, settings sections and actions, naming projects only when there are several', () => {
    const one = paletteItems([conv('c1', 'Hello')], [{ id: 'default', name: 'Default', created: 1 }], [{ project: 'default', entries: [dir('/memories/notes'), file('/memories/notes/a.md')] }]);
    expect(one.map((i) => [i.kind, i.label, i.project])).toEqual([
      ['Conversation', 'Hello', undefined],
      ['Memory', '/memories/notes/a.md', undefined],
      ['Project', 'Default', undefined],
      ['Settings', 'Connection', undefined],
      ['Settings', 'Claude and memory', undefined],
      ['Settings', 'Security', undefined],
      ['Settings', 'Vault folder', undefined],
      ['Settings', 'Use this memory in other apps', undefined],
      ['Settings', 'Language', undefined],
      ['Action', 'New conversation', undefined],
      ['Action', 'New temporary chat', undefined],
      ['Action', 'Keyboard shortcuts', undefined],
      ['Action', 'Lock', undefined],
    ]);
    expect(one[1]!.target).toEqual({ kind: 'memory', path: '/memories/notes/a.md', project: 'default' });
  });

  it('with several projects says which one each conversation and memory is in, and leaves out those of a deleted project', () => {
    const projects = [
      { id: 'default', name: 'Default', created: 1 },
      { id: 'p2', name: 'Work', created: 2 },
    ];
    const all = paletteItems([conv('t', 'Scratch', 'p2', true), conv('c1', 'Plan'), conv('gone', 'Old', 'deleted-project')], projects, [{ project: 'p2', entries: [file('/memories/todo.md')] }]);
    const shown = all.filter((i) => i.kind !== 'Settings' && i.kind !== 'Action');
    expect(shown.map((i) => [i.kind, i.label, i.project])).toEqual([
      ['Temporary chat', 'Scratch', 'Work'],
      ['Conversation', 'Plan', 'Default'],
      ['Memory', '/memories/todo.md', 'Work'],
      ['Project', 'Default', undefined],
      ['Project', 'Work', undefined],
    ]);
    expect(new Set(all.map((i) => i.key)).size).toBe(all.length);
  });
});
