/**
 * The conversation list's groups, as the best chat apps show them: Pinned,
 * then by last update Today, Yesterday, Previous 7 days, Previous 30 days,
 * then one group per month ("October", or "September 2025" for an earlier
 * year). Days are counted from local midnights, so a conversation from 23:59
 * yesterday is "Yesterday" whatever the time now, and a time-zone or summer-time
 * change moves nothing by an hour's worth of days.
 */
import { locale as windowLocale } from '../../lib/format';
import { i18n } from '../../lib/i18n';

/** The fixed groups' names (catalog keys); month groups are named by Intl. */
const GROUP_LABELS = { pinned: 'groups.pinned', today: 'groups.today', yesterday: 'groups.yesterday', week: 'groups.week', month: 'groups.month' } as const;
type Bound = Exclude<keyof typeof GROUP_LABELS, 'pinned'>;

/** What grouping needs of a conversation. */
export interface Datable {
  updated: number;
  pinned?: boolean | undefined;
  archived?: boolean | undefined;
}

export interface Group<T> {
  /** Stable across renders and languages: 'pinned', 'today', …, or 'm-2025-09'. */
  key: string;
  /** The group's name in the window's language when it was made ("Today", "October"). */
  label: string;
  items: T[];
}

/** Local midnight `days` days before the day of `now`. */
const midnight = (now: Date, days = 0) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - days).getTime();

/**
 * `list` (archived ones left out) in display groups, newest first inside each;
 * empty groups are not returned. Names are in the window's language; `locale`
 * picks the month names (default: the window's language).
 */
export function groupConversations<T extends Datable>(list: readonly T[], now: Date, locale: string = windowLocale()): Array<Group<T>> {
  const shown = list.filter((c) => !c.archived).sort((a, b) => b.updated - a.updated);
  const t = i18n.getFixedT(null, 'chat');
  const bounds: Array<[key: Bound, from: number]> = [
    ['today', midnight(now)],
    ['yesterday', midnight(now, 1)],
    ['week', midnight(now, 7)],
    ['month', midnight(now, 30)],
  ];
  const groups = new Map<string, Group<T>>();
  const add = (key: string, label: () => string, c: T) => {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, label: label(), items: [] }));
    g.items.push(c);
  };
  const month = new Intl.DateTimeFormat(locale, { month: 'long' });
  const monthYear = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric' });
  // Pinned first: the Map keeps the order groups were first added, and the list is newest first.
  groups.set('pinned', { key: 'pinned', label: t(GROUP_LABELS.pinned), items: [] });
  for (const c of shown) {
    if (c.pinned) {
      groups.get('pinned')!.items.push(c);
      continue;
    }
    const bound = bounds.find(([, from]) => c.updated >= from);
    if (bound) add(bound[0], () => t(GROUP_LABELS[bound[0]]), c);
    else {
      const d = new Date(c.updated);
      const sameYear = d.getFullYear() === now.getFullYear();
      add(`m-${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`, () => (sameYear ? month : monthYear).format(d), c);
    }
  }
  const order = ['pinned', ...bounds.map(([key]) => key)];
  // Future dates (another device's clock ahead) land in Today, which the find above already does; months follow newest first.
  return [...groups.values()].filter((g) => g.items.length > 0).sort((a, b) => rank(a.key, order) - rank(b.key, order) || (a.key < b.key ? 1 : -1));
}

function rank(key: string, order: string[]): number {
  const i = order.indexOf(key);
  return i < 0 ? order.length : i;
}

/** The archived conversations, newest first. */
export function archivedOf<T extends Datable>(list: readonly T[]): T[] {
  return list.filter((c) => c.archived).sort((a, b) => b.updated - a.updated);
}
