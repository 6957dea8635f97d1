/** The bounds added to the SDK's stdio transport, on in-memory streams with small limits. */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BoundedStdioTransport } from '../../../electron/core/mcp/stdio';

/** A stdout whose reader takes nothing until `read()` is called. */
function slowReader() {
  let pending: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 1024,
    write(_chunk, _enc, done) {
      pending.push(done);
    },
  });
  return {
    out,
    read() {
      const p = pending;
      pending = [];
      for (const done of p) done();
    },
    /** Takes everything written from now on at once. */
    flowing() {
      out._write = (_chunk, _enc, done) => done();
      this.read();
    },
  };
}

const note = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(n) } });

describe('the bounded stdio transport', () => {
  it('holds the next call back while more than the soft bound of answers is unread, and lets it go once they are read', async () => {
    const input = new PassThrough();
    const reader = slowReader();
    const lines: string[] = [];
    const t = new BoundedStdioTransport(input, reader.out, { softBacklogBytes: 2000, hardBacklogBytes: 100_000, log: (l) => lines.push(l) });
    await t.start();
    await t.drained();
    void t.send(note(3000));
    let released = false;
    const waiting = t.drained().then(() => (released = true));
    await new Promise((r) => setImmediate(r));
    expect(released).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/not reading its answers \(0\.0 MiB unread\): holding its calls back/)]);
    reader.flowing();
    await waiting;
    expect(released).toBe(true);
    await t.close();
  });

  it('stops reading requests past the hard bound, and reads again once the answers are taken', async () => {
    const input = new PassThrough();
    const reader = slowReader();
    const lines: string[] = [];
    const t = new BoundedStdioTransport(input, reader.out, { softBacklogBytes: 1000, hardBacklogBytes: 5000, log: (l) => lines.push(l) });
    await t.start();
    for (let i = 0; i < 3; i++) void t.send(note(2000));
    expect(input.isPaused()).toBe(true);
    expect(lines.at(-1)).toMatch(/its requests are not read either until it does/);
    const resumed = new Promise((r) => input.once('resume', r));
    reader.flowing();
    await resumed;
    expect(input.isPaused()).toBe(false);
    await t.close();
  });

  it('waits for nothing once stdout is gone (nobody will ever read)', async () => {
    const input = new PassThrough();
    const reader = slowReader();
    const t = new BoundedStdioTransport(input, reader.out, { softBacklogBytes: 100, hardBacklogBytes: 100_000 });
    await t.start();
    void t.send(note(500));
    const waiting = t.drained();
    reader.out.destroy();
    await waiting;
    expect(t.backlog).toBe(0);
    await t.close();
  });

  it('drops the connection on a line longer than it takes', async () => {
    const input = new PassThrough();
    const reader = slowReader();
    const t = new BoundedStdioTransport(input, reader.out, { maxLineBytes: 1000 });
    const errors: Error[] = [];
    t.onerror = (e) => errors.push(e);
    const closed = new Promise<void>((r) => (t.onclose = r));
    await t.start();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + 'y'.repeat(2000));
    await closed;
    expect(errors[0]?.message).toMatch(/exceeded maximum size/);
  });
});
