/**
 * Every check of a passphrase or recovery key the window asks for goes
 * through one GuessLimiter. A page running hostile script can call unlock or
 * any passphrase-guarded action in a loop; without this it could try keys as
 * fast as Argon2id runs, and run dozens at once (each taking 64 MiB or more).
 */
import { VaultError } from '../../core/vault/types';
import { m } from '../../core/i18n/message';

/** Wrong tries in a row that cost nothing extra (a person mistyping). */
export const FREE_TRIES = 5;
/** The longest wait between tries, reached after about nine more wrong ones. */
export const MAX_WAIT_MS = 5 * 60_000;

export class GuessLimiter {
  private failures = 0;
  private notBefore = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly now: () => number) {}

  /**
   * Runs `check` (which derives a key from a secret the window sent) after every
   * earlier one has finished, so checks never run side by side. A wrong secret
   * (BAD_PASSPHRASE) counts; past FREE_TRIES each one doubles the wait before
   * the next is taken, and a try inside the wait is refused without running.
   * A right one clears the count.
   */
  attempt<T>(check: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      const wait = this.notBefore - this.now();
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new VaultError('BAD_PASSPHRASE', m('errors:unlock.tooManyTries', { count: seconds }));
      }
      try {
        const result = await check();
        this.failures = 0;
        this.notBefore = 0;
        return result;
      } catch (err) {
        if (err instanceof VaultError && err.code === 'BAD_PASSPHRASE') {
          this.failures++;
          if (this.failures >= FREE_TRIES) this.notBefore = this.now() + Math.min(MAX_WAIT_MS, 1000 * 2 ** (this.failures - FREE_TRIES));
        }
        throw err;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
