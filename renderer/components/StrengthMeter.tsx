import type { CSSProperties } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { STRENGTH_LEVELS, STRENGTH_MAX, type Strength } from '../lib/strength';
import './StrengthMeter.css';

/**
 * Main's strength estimate as a bar and a line of words, both painted from the
 * same row of STRENGTH_LEVELS. Empty (a line of guidance) until something is typed and rated; then the
 * level in a word, and main's advice under it while there is any. It takes only the room its words need: the screens
 * that show it keep their card's top in place (styles.css), so nothing above it moves as the words change.
 */
export function StrengthMeter({ strength, label }: { strength: Strength; label?: string }) {
  const { t } = useTranslation();
  const row = STRENGTH_LEVELS[strength.level];
  const style = { '--level-colour': row.colour } as CSSProperties;
  return (
    <div className="strength" data-level={strength.level} style={style}>
      <div className="meter" role="meter" aria-label={label ?? t('strength.label')} aria-valuemin={0} aria-valuemax={STRENGTH_MAX} aria-valuenow={row.value} aria-valuetext={t(row.spoken)}>
        <div className="bar" style={{ width: `${(row.value / STRENGTH_MAX) * 100}%` }} />
      </div>
      {/* Before anything is rated, a line of guidance instead of a placeholder word ("Strength: —"). Rated: "Strength: weak",
          and under it what would make it stronger, when main has advice (none for a strong one). */}
      {strength.level === 'none' ? (
        <p className="hint strength-hint">{t('strength.notRated')}</p>
      ) : (
        <div className="hint strength-hint">
          <p className="strength-line">
            <Trans i18nKey="strength.rated" values={{ word: t(row.word) }} components={[<strong className="strength-word" />]} />
          </p>
          {strength.hint && <p className="strength-advice">{strength.hint}</p>}
        </div>
      )}
    </div>
  );
}
