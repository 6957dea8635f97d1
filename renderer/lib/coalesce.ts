/** A coalesced refresh: `run` asks for it, `stop` drops a pending run and any after it (the component or its subject went away). */
export interface Coalesced {
  run(): void;
  stop(): void;
}

/**
 * Wraps an asynchronous refresh so a burst of triggers (Claude or an import
 * writing many memories at once) runs it a few times, not once per trigger.
 * A lone trigger runs at once; runs start at most once per `delayMs`, and
 * triggers that come while a run is in flight start one more run after it.
 * The last run always starts after the last trigger, unless stopped.
 */
export function coalesced(refresh: () => Promise<unknown>, delayMs = 100): Coalesced {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  let last = -Infinity;
  const start = () => {
    timer = undefined;
    if (stopped) return;
    running = true;
    last = Date.now();
    void refresh().finally(() => {
      running = false;
      if (again) {
        again = false;
        run();
      }
    });
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (timer !== undefined) return;
    const wait = last + delayMs - Date.now();
    if (wait <= 0) start();
    else timer = setTimeout(start, wait);
  };
  return {
    run,
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
