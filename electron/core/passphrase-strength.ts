/**
 * How guessable a passphrase is, judged the way an attacker guesses: zxcvbn's
 * model of dictionary words, names, dates, keyboard walks, repeats and common
 * substitutions (`@zxcvbn-ts/core` with the common and English dictionaries).
 * Counting character classes rates `Football2024!!` strong; a dictionary
 * attack finds it in seconds, even at our Argon2id cost.
 *
 * Used by main (window and CLI alike) to refuse weak passphrases when a vault
 * is created or its passphrase changed; the window's meter asks main too.
 */
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { VaultError } from './vault/types';
import { m, type Keyed, type LocalMessage } from './i18n/message';

/** The verdict on one passphrase, with feedback a person can act on. */
export interface PassphraseAssessment {
  /** zxcvbn's score: 0 (guessed almost at once) … 4 (very unguessable). */
  score: 0 | 1 | 2 | 3 | 4;
  /** True when the vault may be protected by it. */
  acceptable: boolean;
  /** What makes it weak, e.g. "This is similar to a commonly used password."; empty when there is nothing to say. */
  warning: string;
  /** How to make it stronger. */
  suggestions: string[];
  /**
   * The same feedback as ids, for the window to say in its language: zxcvbn's own names for its
   * messages (`warnings.common`, `suggestions.l33t`, …) or ours (`mnemo.tooShort`, …). `warning` is
   * absent when there is nothing to say.
   */
  feedback: { warning?: string; suggestions: string[] };
}

/** Shortest accepted passphrase: below this, even random characters are within reach of an offline attack on a copied vault. */
export const MIN_PASSPHRASE_LENGTH = 12;
/**
 * Fewest estimated guesses accepted, as a power of ten. zxcvbn's score 3 starts at only 10^8 guesses —
 * `Football2024!!` sits exactly there — and someone holding a copy of the vault can try thousands of
 * Argon2id guesses a second on rented hardware, so 10^8 falls in about a day. 10^12 takes years at that
 * rate; it implies score 4, and four random words (about 10^19) clear it easily.
 */
export const MIN_GUESSES_LOG10 = 12;
/**
 * zxcvbn's cost grows faster than the length (256 random characters take seconds on the main process's
 * event loop), so only the first 64 characters are judged: if they are strong the rest only adds, and a
 * passphrase whose first 64 are weak is refused, which errs on the safe side.
 */
const JUDGED_LENGTH = 64;
/** Words that say nothing secret about this vault: an attacker tries them first. */
const APP_WORDS = ['mnemo', 'claude', 'anthropic', 'memory', 'memories', 'vault', 'passphrase', 'password'];

/** Our own feedback, in English, by id (the window's catalog has them under the same ids). */
const OWN = {
  tooShort: `This is shorter than ${MIN_PASSPHRASE_LENGTH} characters.`,
  useWords: 'Use four or more unrelated words.',
  guessable: 'This would be found quickly by an attacker guessing common words and patterns.',
  addWords: 'Add another word or two; unrelated words work best.',
} as const;

let factory: Promise<ZxcvbnFactory> | undefined;
/** zxcvbn's English feedback → its id (`warnings.x`, `suggestions.y`), read from the translations it was given. */
let feedbackIds: Map<string, string> | undefined;

/** Loads the estimator and its dictionaries (a few MB) the first time a passphrase is judged, not at start-up. */
function estimator(): Promise<ZxcvbnFactory> {
  factory ??= (async () => {
    const [core, common, en] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]);
    feedbackIds = new Map(
      (['warnings', 'suggestions'] as const).flatMap((group) => Object.entries(en.translations[group]).map(([id, text]) => [text, `${group}.${id}`] as [string, string])),
    );
    return new core.ZxcvbnFactory({
      translations: en.translations,
      graphs: common.adjacencyGraphs,
      dictionary: { ...common.dictionary, ...en.dictionary },
      // Near-miss matching costs ~10x the time (hundreds of ms per check on the main process's event loop);
      // the dictionary, l33t and pattern matchers plus the high bar above already catch the weak ones.
      useLevenshteinDistance: false,
    });
  })();
  factory.catch(() => (factory = undefined));
  return factory;
}

/**
 * Judges a passphrase. `userInputs` are words an attacker could know about
 * this user or vault (a name, an e-mail address); they count as guessable.
 * Acceptable means at least 12 characters and at least 10^12 estimated guesses (so score 4).
 */
export async function assessPassphrase(passphrase: string, userInputs: string[] = []): Promise<PassphraseAssessment> {
  const zxcvbn = await estimator();
  const result = await zxcvbn.checkAsync([...passphrase].slice(0, JUDGED_LENGTH).join(''), [...APP_WORDS, ...userInputs]);
  const score = result.score as PassphraseAssessment['score'];
  const long = [...passphrase].length >= MIN_PASSPHRASE_LENGTH;
  const acceptable = long && result.guessesLog10 >= MIN_GUESSES_LOG10;
  const idOf = (text: string) => feedbackIds?.get(text) ?? '';
  let warning = result.feedback.warning ?? '';
  let warningId = warning ? idOf(warning) : undefined;
  const suggestions = [...result.feedback.suggestions];
  const suggestionIds = suggestions.map(idOf);
  const own = (id: keyof typeof OWN) => [OWN[id], `mnemo.${id}`] as const;
  if (!long) {
    if (!warning) [warning, warningId] = own('tooShort');
    suggestions.unshift(OWN.useWords);
    suggestionIds.unshift(own('useWords')[1]);
  } else if (!acceptable) {
    if (!warning) [warning, warningId] = own('guessable');
    if (suggestions.length === 0) {
      suggestions.push(OWN.addWords);
      suggestionIds.push(own('addWords')[1]);
    }
  }
  return { score, acceptable, warning, suggestions, feedback: { ...(warningId !== undefined ? { warning: warningId } : {}), suggestions: suggestionIds } };
}

/** Our own feedback ids → their text in the window's catalog (zxcvbn's ids are there as they are: `common:strength.<id>`). */
const OWN_KEYS = {
  'mnemo.tooShort': 'common:strength.warnings.tooShort',
  'mnemo.guessable': 'common:strength.warnings.guessable',
  'mnemo.useWords': 'common:strength.suggestions.useUnrelatedWords',
  'mnemo.addWords': 'common:strength.suggestions.addWords',
} as const;

/** One piece of feedback as a message: by its catalog key when it has one, else zxcvbn's English as it is. */
function feedbackPiece(id: string | undefined, english: string): Keyed {
  if (id && Object.hasOwn(OWN_KEYS, id)) return { key: OWN_KEYS[id as keyof typeof OWN_KEYS], params: { min: MIN_PASSPHRASE_LENGTH } };
  if (id && /^(warnings|suggestions)\.\w+$/.test(id)) return { key: `common:strength.${id}` };
  return m('errors:plain', { text: english });
}

/** The message shown when a weak passphrase is refused: what is wrong and what to do (English in `text`). */
export function weakPassphrase(a: PassphraseAssessment): LocalMessage {
  const advice = a.suggestions[0] ? feedbackPiece(a.feedback.suggestions[0], a.suggestions[0]) : feedbackPiece('mnemo.useWords', OWN.useWords);
  return a.warning ? m('errors:passphrase.tooWeak', { warning: feedbackPiece(a.feedback.warning, a.warning), advice }) : m('errors:passphrase.tooWeakNoWarning', { advice });
}

/** weakPassphrase's English. */
export function weakPassphraseMessage(a: PassphraseAssessment): string {
  return weakPassphrase(a).text;
}

/** INVALID (with what is weak and what to do) unless `passphrase` is acceptable; the one rule for the window and the CLI. */
export async function requireStrongPassphrase(passphrase: string): Promise<void> {
  const verdict = await assessPassphrase(passphrase);
  if (!verdict.acceptable) throw new VaultError('INVALID', weakPassphrase(verdict));
}
