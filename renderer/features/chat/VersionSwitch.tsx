import { useContext } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../lib/format';
import { EntryActionsContext, type SwitchDecor } from './versions';
import './VersionSwitch.css';

/**
 * ‹ 2 / 3 ›: which version of a message (or of its reply) is shown, and the
 * buttons to the one before and after. The buttons are disabled at the ends
 * and while Claude answers. The message is drawn again after a switch, so the
 * chat puts focus back on the button pressed (see `focusSwitch`).
 */
export function VersionSwitch({ entry, shown, count, of, targets, busy }: SwitchDecor & { busy: boolean }) {
  const { t } = useTranslation('chat');
  const actions = useContext(EntryActionsContext);
  const go = (to: number, pressed: 'previous' | 'next') => actions.showVersion(entry, targets?.[to] ?? to, pressed, { of, shown: to, count });
  const label = t('versions.count', { shown: formatNumber(shown + 1), total: formatNumber(count) });
  return (
    <div className="version-switch" role="group" aria-label={t('versions.label')} data-version-entry={entry} data-version-of={of} data-version-shown={shown}>
      <button type="button" className="version-step" data-step="previous" aria-label={t('versions.previous')} title={t('versions.previous')} disabled={busy || shown === 0} onClick={() => go(shown - 1, 'previous')}>
        <span aria-hidden="true">‹</span>
      </button>
      <span className="version-count">
        <span className="sr-only">{label}</span>
        <span aria-hidden="true">
          {formatNumber(shown + 1)} / {formatNumber(count)}
        </span>
      </span>
      <button type="button" className="version-step" data-step="next" aria-label={t('versions.next')} title={t('versions.next')} disabled={busy || shown === count - 1} onClick={() => go(shown + 1, 'next')}>
        <span aria-hidden="true">›</span>
      </button>
    </div>
  );
}

/**
 * Focuses the switch button pressed once the message is drawn again showing
 * version `shown` (the switch drawn before it goes with its message); at an
 * end that button is disabled, so its neighbour takes focus instead of the
 * page. Gives up after about two seconds (the message scrolled out of view).
 */
export function focusSwitch(entry: number, of: SwitchDecor['of'], shown: number, pressed: 'previous' | 'next', frames = 120): void {
  const group = document.querySelector(`[data-version-entry="${entry}"][data-version-of="${of}"][data-version-shown="${shown}"]`);
  const first = group?.querySelector<HTMLButtonElement>(`button[data-step="${pressed}"]`);
  const other = group?.querySelector<HTMLButtonElement>(`button[data-step="${pressed === 'next' ? 'previous' : 'next'}"]`);
  const target = first && !first.disabled ? first : other && !other.disabled ? other : undefined;
  if (target) {
    target.focus();
    return;
  }
  if (frames > 0) requestAnimationFrame(() => focusSwitch(entry, of, shown, pressed, frames - 1));
}
