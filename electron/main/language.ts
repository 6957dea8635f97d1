/**
 * The language of main's own dialogs (consent, links, file pickers, the
 * start-up refusal): the Language setting this device keeps
 * (device-prefs.ts), else the system's. Read at each dialog, so a change in
 * Settings applies to the next one without a restart. Plain Node: the few
 * lines that ask Electron for the system's languages live in index.ts.
 */
import { translator, type Translate } from '../core/i18n/translator';
import { matchLanguage, type LanguageCode } from '../shared/languages';
import en from '../shared/locales/en/errors.json' with { type: 'json' };
import id from '../shared/locales/id/errors.json' with { type: 'json' };
import ja from '../shared/locales/ja/errors.json' with { type: 'json' };
import ptBR from '../shared/locales/pt-BR/errors.json' with { type: 'json' };
import zhCN from '../shared/locales/zh-CN/errors.json' with { type: 'json' };
import { loadPrefs } from './device-prefs';

// All five in the bundle (a few dozen KB each): a dialog is said at once, even the one before any window exists.
const ERRORS = { en, 'zh-CN': zhCN, ja, id, 'pt-BR': ptBR } as const satisfies Record<LanguageCode, unknown>;

/** The language main speaks: the stored choice, else the best match for the system's languages (English when none is shipped). */
export function appLanguage(userDataDir: string, systemLanguages: () => readonly string[]): LanguageCode {
  const choice = loadPrefs(userDataDir).language;
  if (choice !== 'system') return choice;
  try {
    return matchLanguage(systemLanguages());
  } catch {
    return 'en';
  }
}

const made = new Map<LanguageCode, Translate>();

/** A `t` over the errors namespace (where main's dialog texts live) in `lang`, with English for what it lacks. */
export function mainTranslator(lang: LanguageCode): Translate {
  let t = made.get(lang);
  if (!t) {
    t = translator(lang, { en: { errors: ERRORS.en }, ...(lang === 'en' ? {} : { [lang]: { errors: ERRORS[lang] } }) });
    made.set(lang, t);
  }
  return t;
}

/** The `t` for main's next dialog. */
export function dialogTranslator(userDataDir: string, systemLanguages: () => readonly string[]): Translate {
  return mainTranslator(appLanguage(userDataDir, systemLanguages));
}
