/**
 * A hostile client that makes its calls wait (here: it stops reading its
 * answers) and then sends the largest lines the server takes: the calls held
 * in the queue must not hold gigabytes of parsed input (atk-mcp round).
 */
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weightOf } from '../../../electron/core/mcp/stdio';
import { callLine, exited, handshake, initVault, RawClient, rssMiB, toolText } from './helpers';


let v: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  v = await initVault();
});
afterAll(async () => {
  await fs.rm(v.root, { recursive: true, force: true });
});

describe('calls held in the queue', () => {
  it('weighs a parsed input without recursion, and stops counting past the cap', () => {
    expect(weightOf({ a: 'xyz' }, 1000)).toBeGreaterThan(3);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(weightOf(deep, 1e9)).toBeGreaterThan(200_000);
    expect(weightOf(new Array(1_000_000).fill(0), 1000)).toBeLessThan(2000);
  });

  it('hold a bounded amount of input: past it, the client’s requests are not read until answers bring it down; all are answered in the end', async () => {
    const c = new RawClient(v.vault, v.env);
    c.send(handshake('heavy'));
    await c.response(0);
    c.send(callLine(1, { command: 'create', path: '/memories/wide.md', file_text: ('y'.repeat(99) + '\n').repeat(9_900) }));
    expect(toolText(await c.response(1)).isError).toBe(false);
    c.child.stdout.pause();
    let lines = '';
    for (let id = 2; id < 10; id++) lines += JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'mnemo://memories/wide.md' } }) + '\n';
    c.send(lines);
    await c.until(() => /holding its calls back/.test(c.stderr));
    // 24 lines of 8 MB, each an array of 4 million numbers once parsed: over a gigabyte if all were held.
    const arr = '[' + '0,'.repeat(4 * 1024 * 1024 - 1) + '0]';
    const ids: number[] = [];
    for (let id = 100; id < 124; id++) {
      ids.push(id);
      const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"memory","arguments":{"command":"view","path":"/memories","x":${arr}}}}\n`;
      // Not waiting for the pipe to drain: past the bound the server stops reading, and the rest stays on this side.
      c.send(line);
    }
    await c.until(() => /hold too much data/.test(c.stderr));
    // 190-270 MiB here; 672 MiB was seen 2 s after the hold on a fresh-clone run beside a deep run, when the SDK's read
    // buffer still copied itself at every chunk (line-buffer.ts now). Garbage goes at a later collection, so this
    // waits for it; held, the 24 lines would be over a gigabyte for good.
    await expect.poll(() => rssMiB(c.child.pid!), { timeout: 30_000, interval: 1000 }).toBeLessThan(500);
    c.child.stdout.resume();
    await c.until(() => ids.every((id) => c.responses.has(id)));
    // Every one is answered once the client reads again: held back, never wedged.
    for (const id of ids) expect(toolText(c.responses.get(id)!).text).toMatch(/^Here're the files/);
    c.child.stdin.end();
    expect(await exited(c.child)).toBe(0);
  }, 120_000);
});
