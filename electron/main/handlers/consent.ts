/**
 * Main's say over what the window asks: a change that weakens a protection or
 * replaces the API key is made only with the passphrase (checked here, through
 * the guess limiter) or after the user agrees in a dialog main shows itself.
 * The window can ask; it cannot decide (DESIGN.md §9b).
 */
import { VaultError } from '../../core/vault/types';
import { englishErrors, m, say, type Keyed, type LocalMessage } from '../../core/i18n/message';
import type { Translate } from '../../core/i18n/translator';
import type { AppSession } from './session';

/** Sessions whose consent dialog is open now. */
const asking = new WeakSet<AppSession>();
/** When each session's user last said Cancel in main's dialog. */
const declined = new WeakMap<AppSession, number>();
/**
 * How long after a Cancel main shows no new dialog (the passphrase still works): a page asking in a loop
 * would otherwise put one up again at once, every time, until a tired or mistaken click allows it.
 */
export const CONSENT_COOLDOWN_MS = 60_000;

/** What main's own dialog shows: the question, and the changes asked for, one a line. */
export interface ConsentQuestion {
  /** In English (tests, logs); `changes` lets main's dialog say it in the app's language (consentDialog). */
  message: string;
  detail: string;
  changes?: readonly Keyed[];
}

/** The consent dialog's question and detail in the language of `t`: the changes one a line, then what to do if unasked. */
export function consentDialog(t: Translate, changes: readonly Keyed[]): { message: string; detail: string } {
  return { message: t('errors:consent.question'), detail: t('errors:consent.detail', { changes: changes.map((c) => say(t, c)).join(t('errors:consent.lineBreak')) }) };
}

/**
 * Resolves when the user has agreed to `changes`: the right `passphrase`, else
 * a yes in main's own dialog. Otherwise NEEDS_CONSENT (or BAD_PASSPHRASE for a
 * wrong one), and the caller changes nothing.
 */
export async function requireConsent(s: AppSession, changes: LocalMessage[], passphrase: string | undefined): Promise<void> {
  const vault = s.unlocked();
  if (passphrase !== undefined) {
    await s.guesses.attempt(() => vault.verifyPassphrase(passphrase));
    return;
  }
  const question = { ...consentDialog(englishErrors(), changes), changes };
  // One dialog at a time: a page asking in a loop gets refusals, not a stack of dialogs to click through.
  const now = s.ctx.now ?? Date.now;
  const coolingDown = now() - (declined.get(s) ?? -Infinity) < CONSENT_COOLDOWN_MS;
  if (s.ctx.confirmChange && !asking.has(s) && !coolingDown) {
    asking.add(s);
    try {
      if (await s.ctx.confirmChange(question)) return;
      declined.set(s, now());
    } finally {
      asking.delete(s);
    }
  }
  throw new VaultError('NEEDS_CONSENT', m('errors:consent.needed', { changes }));
}
