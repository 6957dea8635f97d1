/**
 * Newline-delimited JSON on a stream, bounded both ways: a reader that never
 * holds more than one frame's worth of bytes (a longer line is an overflow,
 * and the caller ends the connection), and a writer that gives up on a peer
 * that does not read (its unread output would otherwise grow without bound).
 */
import type { Socket } from 'node:net';

const NEWLINE = 0x0a;

/** Splits a byte stream into lines of at most `max` bytes (the newline not counted). */
export class FrameReader {
  private parts: Buffer[] = [];
  private size = 0;
  private stopped = false;

  constructor(
    private readonly max: number,
    private readonly onFrame: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  /** Feeds bytes; calls onFrame for each whole line, or onOverflow once and then ignores everything. */
  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.max) return this.overflow();
      const line = this.size ? Buffer.concat([...this.parts, piece], this.size + piece.length) : piece;
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      this.onFrame(line.toString('utf8'));
    }
    if (this.stopped) return;
    const rest = chunk.subarray(start);
    if (this.size + rest.length > this.max) return this.overflow();
    if (rest.length) {
      this.parts.push(rest);
      this.size += rest.length;
    }
  }

  /** Ignores everything from now on (the connection is ending). */
  stop(): void {
    this.stopped = true;
    this.parts = [];
    this.size = 0;
  }

  private overflow(): void {
    this.stop();
    this.onOverflow();
  }
}

/**
 * Writes one frame: `too-long` (nothing written) when it would pass `maxFrame`
 * bytes, `gone` when the socket is closed or when the peer has left more than
 * `maxUnread` bytes unread, in which case the socket is destroyed: a client that
 * stops reading is cut off rather than buffered for.
 */
export function writeFrame(socket: Socket, message: unknown, maxFrame: number, maxUnread: number): 'sent' | 'too-long' | 'gone' {
  return writeLine(socket, JSON.stringify(message), maxFrame, maxUnread);
}

/** writeFrame for a frame already serialised (without its newline). */
export function writeLine(socket: Socket, json: string, maxFrame: number, maxUnread: number): 'sent' | 'too-long' | 'gone' {
  if (socket.destroyed || !socket.writable) return 'gone';
  if (Buffer.byteLength(json, 'utf8') > maxFrame) return 'too-long';
  socket.write(`${json}\n`);
  if (socket.writableLength > maxUnread) {
    socket.destroy();
    return 'gone';
  }
  return 'sent';
}
