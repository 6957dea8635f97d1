/**
 * The SDK's stdio transport with bounds it does not have on its own.
 *
 * What StdioServerTransport does (SDK 1.32.2, server/stdio.js and
 * shared/stdio.js): it buffers what stdin brings until a newline, up to
 * `maxBufferSize` bytes (10 MiB by default); past that it drops the buffer,
 * reports an error and closes. It writes each answer with `stdout.write` and
 * never stops reading or answering when the client does not read: on Linux a
 * pipe's writes are asynchronous, so Node queues every unread answer in memory,
 * without limit.
 *
 * So here: a line may be up to MAX_LINE_BYTES (room for a 1 MiB memory sent
 * JSON-escaped, and for a 10 MB hostile string to get the memory tool's size
 * error rather than a dropped connection); `drained()` holds the next call
 * back while more than SOFT_BACKLOG_BYTES of answers wait unread; and past
 * HARD_BACKLOG_BYTES (answers the queue refuses at once still get written)
 * stdin is paused, so a client that keeps writing without reading blocks on
 * its own pipe instead of growing this process.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineBuffer } from './line-buffer';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
export const SOFT_BACKLOG_BYTES = 4 * 1024 * 1024;
export const HARD_BACKLOG_BYTES = 16 * 1024 * 1024;
/**
 * Requests read and not yet answered hold their parsed input (in the call queue, in the SDK): 64 lines of 16 MiB
 * waiting behind a slow call would be gigabytes. Past this weight (weightOf) of them, stdin is not read until
 * answers bring it down. A memory is at most 1 MB, so honest clients never come near.
 */
export const MAX_PENDING_WEIGHT = 64 * 1024 * 1024;

/**
 * About how many bytes a parsed JSON value holds, counted until it passes `cap` (then a number above it).
 * Iterative, so a deeply nested input cannot overflow the stack.
 */
export function weightOf(value: unknown, cap: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length && total <= cap) {
    const v = stack.pop();
    total += 8;
    if (typeof v === 'string') total += v.length;
    else if (Array.isArray(v)) {
      for (const x of v) {
        if (typeof x === 'string' || (typeof x === 'object' && x !== null)) stack.push(x);
        else total += 8;
        if (total > cap) break;
      }
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        total += k.length;
        stack.push(x);
        if (total > cap) break;
      }
    }
  }
  return total;
}

export interface BoundedStdioOptions {
  maxLineBytes?: number;
  softBacklogBytes?: number;
  hardBacklogBytes?: number;
  /** Weight of requests read and not yet answered past which stdin is not read (default MAX_PENDING_WEIGHT). */
  maxPendingWeight?: number;
  /** One line for stderr when a bound starts holding the client back. */
  log?: (line: string) => void;
}

export class BoundedStdioTransport extends StdioServerTransport {
  private readonly soft: number;
  private readonly hard: number;
  private readonly maxPending: number;
  /** Weight of each request read and not yet answered, by id; and their sum. */
  private readonly pending = new Map<string | number, number>();
  private pendingWeight = 0;
  private heavy = false;
  private readonly log: (line: string) => void;
  private paused = false;
  private gone = false;
  private closing = false;
  private waiters: Array<() => void> = [];
  /** Told each time the last request read so far is answered. */
  private answeredWaiters: Array<() => void> = [];

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    opts: BoundedStdioOptions = {},
  ) {
    super(input, output, { maxBufferSize: opts.maxLineBytes ?? MAX_LINE_BYTES });
    // The SDK's read buffer is quadratic in a line's chunks (line-buffer.ts): ours takes its place, same answers.
    const sdk = this as unknown as { _readBuffer?: unknown };
    if (sdk._readBuffer === undefined) throw new Error('BoundedStdioTransport: the SDK transport has no _readBuffer to replace (see line-buffer.ts)');
    sdk._readBuffer = new LineBuffer(opts.maxLineBytes ?? MAX_LINE_BYTES);
    this.soft = opts.softBacklogBytes ?? SOFT_BACKLOG_BYTES;
    this.hard = opts.hardBacklogBytes ?? HARD_BACKLOG_BYTES;
    this.maxPending = opts.maxPendingWeight ?? MAX_PENDING_WEIGHT;
    // The protocol sets onmessage at connect: each request is weighed on its way in.
    let inner: ((message: JSONRPCMessage) => void) | undefined;
    Object.defineProperty(this, 'onmessage', {
      configurable: true,
      get: () => inner && ((message: JSONRPCMessage) => (this.weigh(message), inner?.(message))),
      set: (handler: ((message: JSONRPCMessage) => void) | undefined) => (inner = handler),
    });
    this.log = opts.log ?? (() => undefined);
    output.on('drain', this.onDrain);
    // The SDK's send() waits for 'drain' with a listener per answer written while the pipe is full; their number
    // is held by the bounds here (calls held back past SOFT, requests not read past HARD), not by Node's warning.
    output.setMaxListeners(0);
    // Nobody reads any more: nothing will ever drain, and nothing need wait for it.
    const lost = () => {
      this.gone = true;
      this.onDrain();
    };
    output.once('close', lost);
    output.once('error', lost);
  }

  /** Bytes of answers written but not yet taken by the client. */
  get backlog(): number {
    return this.gone ? 0 : this.output.writableLength;
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && !('method' in message) && message.id !== undefined) this.answered(message.id);
    const sent = super.send(message);
    if (!this.paused && !this.closing && this.backlog > this.hard) {
      this.paused = true;
      this.input.pause();
      this.log(`the client is not reading its answers (${mib(this.backlog)} MiB unread): its requests are not read either until it does`);
    }
    return sent;
  }

  override async close(): Promise<void> {
    this.closing = true;
    this.output.off('drain', this.onDrain);
    this.release();
    await super.close();
  }

  private weigh(message: JSONRPCMessage): void {
    if ('method' in message && message.method === 'notifications/cancelled') {
      // A cancelled request may never be answered: its weight goes now.
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.answered(id);
      return;
    }
    if (!('method' in message) || !('id' in message)) return;
    const w = weightOf(message, this.maxPending);
    this.pending.set(message.id, (this.pending.get(message.id) ?? 0) + w);
    this.pendingWeight += w;
    if (!this.heavy && !this.closing && this.pendingWeight > this.maxPending) {
      this.heavy = true;
      this.input.pause();
      this.log(`the client's requests waiting for answers hold too much data (${mib(this.pendingWeight)} MiB): its further requests are not read until they are answered`);
    }
  }

  private answered(id: string | number): void {
    const w = this.pending.get(id);
    if (w === undefined) return;
    this.pending.delete(id);
    this.pendingWeight -= w;
    if (this.pending.size === 0) {
      const waiters = this.answeredWaiters;
      this.answeredWaiters = [];
      for (const f of waiters) f();
    }
    if (this.heavy && this.pendingWeight <= this.maxPending) {
      this.heavy = false;
      if (!this.paused && !this.closing) this.input.resume();
    }
  }

  /**
   * Resolves once every request read so far has its answer handed to stdout (at once if so now), or after
   * `timeoutMs` if one never gets one. The SDK answers a few microtasks after a handler returns: a call the queue
   * has finished may not be answered yet, and closing the server then would drop its answer.
   */
  allAnswered(timeoutMs = 5000): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.answeredWaiters.push(() => (clearTimeout(timer), resolve()));
    });
  }

  /** Resolves once the unread answers are down to the soft bound (at once if they are). */
  drained(): Promise<void> {
    if (this.backlog <= this.soft || this.closing) return Promise.resolve();
    if (this.waiters.length === 0) this.log(`the client is not reading its answers (${mib(this.backlog)} MiB unread): holding its calls back until it does`);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private readonly onDrain = (): void => {
    if (this.backlog > this.soft && !this.closing) return;
    if (this.paused && !this.closing) {
      this.paused = false;
      if (!this.heavy) this.input.resume();
    }
    this.release();
  };

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
