import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { resolveLanguage, switchLanguage } from '../../lib/i18n';
import { LANGUAGES, systemLanguage, type LanguageChoice } from '../../lib/i18n/languages';

/** The language's own name ("日本語"), or its tag for one not shipped (the tests' pseudo-locale). */
const nameOf = (code: string) => LANGUAGES.find((l) => l.code === code)?.name ?? code;

/**
 * The Language setting: the system's language, or one of the shipped ones, each named in its own
 * language. A device preference kept by main outside the vault, so the unlock screen speaks it too;
 * it applies as soon as it is picked, without a restart or a Save.
 */
export function LanguageSettings() {
  const { t } = useTranslation('settings');
  const [choice, setChoice] = useState<LanguageChoice>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    call('prefsGet').then(
      (p) => setChoice(p.language),
      () => setChoice('system'),
    );
  }, []);
  const pick = async (next: LanguageChoice) => {
    setChoice(next);
    setError(undefined);
    try {
      await call('prefsSet', { language: next });
      await switchLanguage(resolveLanguage(next));
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <section aria-labelledby="language">
      <h2 id="language">{t('language.title')}</h2>
      <label>
        {t('language.label')}
        <select value={choice ?? 'system'} disabled={choice === undefined} onChange={(e) => void pick(e.target.value as LanguageChoice)} aria-describedby="language-hint">
          <option value="system">{t('language.system', { language: nameOf(systemLanguage()) })}</option>
          {LANGUAGES.map((l) => (
            // Each language in its own words and script, never translated.
            <option key={l.code} value={l.code} lang={l.code} translate="no">
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <p className="hint" id="language-hint">
        {t('language.hint')}
      </p>
      <ErrorText message={error} />
    </section>
  );
}
