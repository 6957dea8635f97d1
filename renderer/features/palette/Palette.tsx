import { useEffect, useMemo, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { BidiPath } from '../../components/BidiPath';
import { Modal } from '../../components/Modal';
import { imeOwnsKey } from '../../lib/keys';
import { filterItems, type PaletteTarget } from './filter';
import { usePaletteItems } from './items';
import './Palette.css';

const LIST = 'palette-list';
const optionId = (i: number) => `palette-option-${i}`;

/**
 * "Go to" (Ctrl+K): one box to reach any conversation by title, memory by
 * path, project, settings section or common action, by keyboard alone. The
 * ARIA combobox pattern: focus stays in the box while Up and Down move the
 * active option (aria-activedescendant), Enter goes there, Escape closes.
 */
export function Palette({ onGo, onDismiss }: { onGo: (target: PaletteTarget) => void; onDismiss: () => void }) {
  const { t } = useTranslation('palette');
  const { items, loading } = usePaletteItems();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const shown = useMemo(() => filterItems(items, query), [items, query]);
  const at = Math.min(active, Math.max(shown.length - 1, 0));
  // A block body: newer Chromiums return a promise from scrollIntoView, which React would take for a cleanup.
  useEffect(() => {
    document.getElementById(optionId(at))?.scrollIntoView({ block: 'nearest' });
  }, [at, shown]);
  const go = (i: number) => {
    const item = shown[i];
    if (item) onGo(item.target);
  };
  const expanded = shown.length > 0;
  return (
    <Modal labelledBy="palette-title" className="palette" initialFocus="input" onDismiss={onDismiss}>
      <h2 id="palette-title">{t('title')}</h2>
      <input
        role="combobox"
        aria-label={t('input')}
        aria-expanded={expanded}
        aria-controls={LIST}
        aria-autocomplete="list"
        aria-activedescendant={expanded ? optionId(at) : undefined}
        placeholder={t('placeholder')}
        autoComplete="off"
        spellCheck={false}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (imeOwnsKey(e)) return;
          const n = shown.length;
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            if (n) setActive((at + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
          } else if (e.key === 'Enter') {
            e.preventDefault();
            go(at);
          }
        }}
      />
      <ul role="listbox" id={LIST} aria-label={t('list')} className="palette-list" hidden={!expanded}>
        {shown.map((item, i) => (
          // Chosen by the box's keys or a click; the options themselves take no focus, as the pattern wants.
          <li key={item.key} id={optionId(i)} role="option" aria-selected={i === at} className={i === at ? 'active' : undefined} onMouseMove={() => i !== at && setActive(i)} onClick={() => go(i)}>
            {/* What someone wrote (a title, a path, a project's name) is isolated; a memory's path segment by segment. */}
            {item.target.kind === 'memory' ? <BidiPath path={item.label} className="palette-label" /> : <bdi className="palette-label">{item.label}</bdi>}
            <span className="palette-kind">
              {' '}
              {item.project ? <Trans t={t} i18nKey="inProject" values={{ kind: item.kind, project: item.project }} components={[<bdi />]} /> : item.kind}
            </span>
          </li>
        ))}
      </ul>
      <p className="palette-status" role="status">
        {loading ? t('loading') : shown.length === 0 ? t('nothing') : ''}
      </p>
    </Modal>
  );
}
