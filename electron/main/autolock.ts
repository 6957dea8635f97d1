/** Locks the vault after the configured idle minutes (0 = never). Plain Node: the idle clock is passed in. */
export interface AutoLockOptions {
  /** Seconds since the user last touched keyboard or mouse. */
  idleSeconds: () => number;
  /** The current setting, or undefined while locked. */
  minutes: () => Promise<number | undefined>;
  lock: () => void;
  intervalMs?: number;
}

/** Starts polling; returns a stop function. */
export function startAutoLock(opts: AutoLockOptions): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void opts
      .minutes()
      .then((m) => {
        if (m && m > 0 && opts.idleSeconds() >= m * 60) opts.lock();
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, opts.intervalMs ?? 15_000);
  timer.unref?.();
  return () => clearInterval(timer);
}
