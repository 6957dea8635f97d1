/**
 * The MCP server's stdio line buffer (electron/core/mcp/line-buffer.ts) against the SDK's ReadBuffer it replaces: the
 * same messages, errors and size refusals for lines cut into chunks every way, and each line joined once instead of the
 * whole buffer copied at every chunk (a 16 MiB line in 64 KiB chunks was about 2 GiB copied).
 */
import { PassThrough } from 'node:stream';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it, vi } from 'vitest';
import { LineBuffer } from '../../../electron/core/mcp/line-buffer';
import { BoundedStdioTransport } from '../../../electron/core/mcp/stdio';
import { prng } from '../../deep';

type Reader = Pick<ReadBuffer, 'append' | 'readMessage'>;

/** Feeds `chunks` to `r`, reading every message after each; what came out, errors included, in order. */
function run(r: Reader, chunks: Buffer[]): unknown[] {
  const out: unknown[] = [];
  for (const c of chunks) {
    try {
      r.append(c);
      for (let m = r.readMessage(); m !== null; m = r.readMessage()) out.push(m);
    } catch (e) {
      out.push(`error: ${(e as Error).message}`);
    }
  }
  return out;
}

const msg = (id: number, text: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'memory', arguments: { text } } });

describe('LineBuffer', () => {
  it('is the read buffer of the MCP server transport', () => {
    const t = new BoundedStdioTransport(new PassThrough(), new PassThrough());
    expect((t as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(LineBuffer);
  });

  it('gives what the SDK gives, for random lines cut into random chunks (CRLF, bad JSON, empty lines, a line too long)', () => {
    const rand = prng(1234);
    for (let round = 0; round < 300; round++) {
      const parts: string[] = [];
      for (let i = 0; i < 1 + Math.floor(rand() * 8); i++) {
        const kind = rand();
        const text = 'é✓x'.repeat(Math.floor(rand() * 200));
        parts.push(kind < 0.1 ? '{"not json' : kind < 0.15 ? '' : kind < 0.25 ? `${msg(i, text)}\r` : msg(i, text));
      }
      const bytes = Buffer.from(parts.join('\n') + (rand() < 0.7 ? '\n' : ''));
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + Math.floor(rand() * (rand() < 0.5 ? 7 : 400));
        chunks.push(bytes.subarray(at, at + n));
        at += n;
      }
      const max = rand() < 0.2 ? 300 : 1 << 20;
      expect(run(new LineBuffer(max), chunks)).toEqual(run(new ReadBuffer({ maxBufferSize: max }), chunks));
    }
  });

  it('joins a long line once, where the SDK copied its whole buffer at every chunk', () => {
    const line = Buffer.from(msg(1, 'y'.repeat(4 * 1024 * 1024)) + '\n');
    const chunks: Buffer[] = [];
    for (let at = 0; at < line.length; at += 64 * 1024) chunks.push(line.subarray(at, at + 64 * 1024));
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      expect(run(new ReadBuffer({ maxBufferSize: 16 << 20 }), chunks)).toHaveLength(1);
      const sdk = concat.mock.calls.length;
      concat.mockClear();
      expect(run(new LineBuffer(16 << 20), chunks)).toHaveLength(1);
      expect(sdk).toBeGreaterThan(60);
      expect(concat.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      concat.mockRestore();
    }
  });
});
