import { beforeAll, describe, expect, it } from 'vitest';
import { archivedOf, groupConversations } from '../../../renderer/features/chat/conversation-groups';
import { startTestI18n } from '../i18n/window-i18n';

// The groups' names come from the window's catalogs: English here.
beforeAll(() => startTestI18n('en'));

// A fixed "now" in local time: 15 Nov 2026, 10:00.
const now = new Date(2026, 10, 15, 10, 0);
const at = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m - 1, d, h, min).getTime();
const c = (id: string, updated: number, extra: { pinned?: boolean; archived?: boolean } = {}) => ({ id, updated, ...extra });
const shape = (groups: ReturnType<typeof groupConversations<ReturnType<typeof c>>>) => groups.map((g) => [g.label, g.items.map((i) => i.id)]);

describe('conversations are grouped by their last update, counted from local midnights', () => {
  it('Today, Yesterday, Previous 7 days, Previous 30 days, then months (with the year only for an earlier year)', () => {
    const list = [
      c('today-early', at(2026, 11, 15, 0, 0)),
      c('today', at(2026, 11, 15, 9)),
      c('yesterday-late', at(2026, 11, 14, 23, 59)),
      c('yesterday-early', at(2026, 11, 14, 0, 0)),
      c('two-days', at(2026, 11, 13, 23, 59)),
      c('seven-days', at(2026, 11, 8, 0, 0)),
      c('eight-days', at(2026, 11, 7, 23, 59)),
      c('thirty-days', at(2026, 10, 16, 0, 0)),
      c('october', at(2026, 10, 15, 23, 59)),
      c('early-october', at(2026, 10, 1)),
      c('january', at(2026, 1, 3)),
      c('last-september', at(2025, 9, 20)),
      c('last-december', at(2025, 12, 31)),
    ];
    expect(shape(groupConversations(list, now, 'en-US'))).toEqual([
      ['Today', ['today', 'today-early']],
      ['Yesterday', ['yesterday-late', 'yesterday-early']],
      ['Previous 7 days', ['two-days', 'seven-days']],
      ['Previous 30 days', ['eight-days', 'thirty-days']],
      ['October', ['october', 'early-october']],
      ['January', ['january']],
      ['December 2025', ['last-december']],
      ['September 2025', ['last-september']],
    ]);
  });

  it('just after midnight, an hour ago is Yesterday', () => {
    const justAfter = new Date(2026, 10, 15, 0, 5);
    expect(shape(groupConversations([c('a', at(2026, 11, 14, 23, 5))], justAfter, 'en-US'))).toEqual([['Yesterday', ['a']]]);
  });

  it('pinned conversations come first in Pinned whatever their age; archived ones are left out and listed apart', () => {
    const list = [c('old-pinned', at(2024, 3, 1), { pinned: true }), c('new', at(2026, 11, 15, 8)), c('gone', at(2026, 11, 15, 9), { archived: true }), c('pinned-archived', at(2026, 11, 15, 9, 30), { pinned: true, archived: true })];
    expect(shape(groupConversations(list, now, 'en-US'))).toEqual([
      ['Pinned', ['old-pinned']],
      ['Today', ['new']],
    ]);
    expect(archivedOf(list).map((x) => x.id)).toEqual(['pinned-archived', 'gone']);
  });

  it('month names come from Intl in the given language; a date ahead of now (another clock) is Today', () => {
    expect(shape(groupConversations([c('a', at(2026, 9, 1)), c('b', at(2026, 11, 16, 8))], now, 'pt-BR'))).toEqual([
      ['Today', ['b']],
      ['setembro', ['a']],
    ]);
  });

  it('empty groups are not shown', () => {
    expect(groupConversations([], now, 'en-US')).toEqual([]);
  });
});
