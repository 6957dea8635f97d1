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

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
export const SOFT_BACKLOG_BYTES = 4 * 1024 * 1024;
export const HARD_BACKLOG_BYTES = 16 * 1024 * 1024;

export interface BoundedStdioOptions {
  maxLineBytes?: number;
  softBacklogBytes?: number;
  hardBacklogBytes?: number;
  /** One line for stderr when a bound starts holding the client back. */
  log?: (line: string) => void;
}

export class BoundedStdioTransport extends StdioServerTransport {
  private readonly soft: number;
  private readonly hard: number;
  private readonly log: (line: string) => void;
  private paused = false;
  private gone = false;
  private closing = false;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    opts: BoundedStdioOptions = {},
  ) {
    super(input, output, { maxBufferSize: opts.maxLineBytes ?? MAX_LINE_BYTES });
    this.soft = opts.softBacklogBytes ?? SOFT_BACKLOG_BYTES;
    this.hard = opts.hardBacklogBytes ?? HARD_BACKLOG_BYTES;
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
      this.input.resume();
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
