/**
 * The SDK's stdio ReadBuffer (shared/stdio.js, SDK 1.32.2), with the same answers and without its quadratic cost. It
 * copies the whole buffer at each chunk (`Buffer.concat`) and searches all of it for a newline again, so one 16 MiB line
 * arriving in 64 KiB chunks copied and searched about 2 GiB, and left as much garbage behind (672 MiB of RSS seen in
 * queue-weight.test.ts on a loaded machine, against 190-270 MiB). Here chunks wait in a list, each byte is searched for
 * a newline once, and a line is joined once.
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class LineBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** How many bytes at the start were searched already and hold no newline. */
  private searched = 0;

  constructor(private readonly maxBufferSize: number) {}

  /** Takes a chunk; past `maxBufferSize` bytes waiting, drops them all and throws (as the SDK does). */
  append(chunk: Buffer): void {
    if (this.size + chunk.length > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The next whole line's message (its `\r` before the newline dropped), or null while no newline has come. */
  readMessage(): JSONRPCMessage | null {
    let at = -1;
    let offset = 0;
    for (const c of this.chunks) {
      if (offset + c.length > this.searched) {
        const i = c.indexOf(10, Math.max(0, this.searched - offset));
        if (i !== -1) {
          at = offset + i;
          break;
        }
      }
      offset += c.length;
    }
    if (at === -1) {
      this.searched = this.size;
      return null;
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const line = all.toString('utf8', 0, at).replace(/\r$/, '');
    const rest = all.subarray(at + 1);
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
    this.searched = 0;
    return deserializeMessage(line);
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.searched = 0;
  }
}
