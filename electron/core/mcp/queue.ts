/**
 * One MCP server serves its calls one at a time, in the order they came, with
 * a bounded number waiting: a client that floods calls is slowed to the pace
 * of the vault, and past the bound is answered at once with an error instead
 * of piling up work (and memory) without end.
 */

/** The default bound: calls running or waiting per server. */
export const MAX_QUEUED_CALLS = 64;

/** Thrown (at once, without running anything) when the queue is full. */
export class QueueFullError extends Error {
  constructor(limit: number) {
    super(`Mnemo is busy: ${limit} memory calls are already waiting. Nothing was done; wait for their answers, then try again.`);
    this.name = 'QueueFullError';
  }
}

export interface CallQueueOptions {
  /** Calls running or waiting at most (default MAX_QUEUED_CALLS). */
  limit?: number;
  /** Awaited before each call starts: lets the server hold calls back while its answers are not being read. */
  beforeEach?: () => Promise<void>;
}

export class CallQueue {
  private readonly limit: number;
  private readonly beforeEach: () => Promise<void>;
  private tail: Promise<unknown> = Promise.resolve();
  private count = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(opts: CallQueueOptions = {}) {
    this.limit = opts.limit ?? MAX_QUEUED_CALLS;
    this.beforeEach = opts.beforeEach ?? (() => Promise.resolve());
  }

  /** Calls running or waiting now. */
  get size(): number {
    return this.count;
  }

  /**
   * Runs `fn` after every call queued before it. Rejects at once with
   * QueueFullError when `limit` calls are already running or waiting; a call
   * whose `signal` is aborted before its turn is dropped without running.
   */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.count >= this.limit) return Promise.reject(new QueueFullError(this.limit));
    this.count++;
    const start = async (): Promise<T> => {
      await this.beforeEach();
      signal?.throwIfAborted();
      return fn();
    };
    const run = this.tail.then(start, start);
    this.tail = run.then(
      () => this.settled(),
      () => this.settled(),
    );
    return run;
  }

  /** Resolves once nothing runs or waits (at once if so now). */
  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settled(): void {
    this.count--;
    if (this.count > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
