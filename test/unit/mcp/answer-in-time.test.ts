/**
 * What `mnemo mcp`'s server tells its backend about a call besides its input:
 * when the client stops waiting (so a change held for the user's approval in
 * the app is answered with Mnemo's own words before the SDK's Client gives up
 * with "Request timed out"), and that the client cancelled it (so the app
 * withdraws the change). Driven by the SDK's own Client, in process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallOptions, MemoryBackend } from '../../../electron/core/mcp/backend';
import { ANSWER_WITHIN_MS, createMemoryServer } from '../../../electron/core/mcp/server';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A backend whose calls wait until the test lets them go, recording what the server said about each. */
function holdingBackend() {
  const seen: Array<{ opts: CallOptions | undefined; at: number }> = [];
  const release: Array<() => void> = [];
  const backend: MemoryBackend = {
    kind: 'app',
    call: (_input, opts) => {
      seen.push({ opts, at: Date.now() });
      return new Promise((resolve) => release.push(() => resolve({ content: 'done', is_error: false })));
    },
    list: async () => [],
    read: async () => '',
    onChange: () => () => undefined,
    onGone: () => () => undefined,
    close: async () => undefined,
  };
  return { backend, seen, release };
}

async function connected(backend: MemoryBackend): Promise<Client> {
  const server = createMemoryServer({ backend, readOnly: false, version: '0.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.mcp.connect(a);
  const client = new Client({ name: 'Claude Desktop', version: '1' });
  await client.connect(b);
  closers.push(async () => (await client.close(), await server.close()));
  return client;
}

describe('mnemo mcp tells the app about each call', () => {
  it('when its client stops waiting: in time for a client on the SDK’s default request timeout', async () => {
    // Mnemo's answer must reach a default client before its own timer says "Request timed out", with room for a slow machine.
    expect(ANSWER_WITHIN_MS).toBeLessThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MSEC - 10_000);
    const { backend, seen, release } = holdingBackend();
    const client = await connected(backend);
    const before = Date.now();
    const answer = client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/a.md', file_text: 'x' } });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    const deadline = seen[0]!.opts?.deadline;
    expect(deadline).toBeGreaterThanOrEqual(before + ANSWER_WITHIN_MS);
    expect(deadline).toBeLessThanOrEqual(Date.now() + ANSWER_WITHIN_MS);
    release[0]!();
    expect(await answer).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
  });

  it('counts that time from when the call came, not from when its turn in the queue came', async () => {
    const { backend, seen, release } = holdingBackend();
    const client = await connected(backend);
    const first = client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories' } });
    const sent = Date.now();
    const second = client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories' } });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 300));
    release[0]!();
    await first;
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen[1]!.opts?.deadline).toBeLessThanOrEqual(sent + ANSWER_WITHIN_MS + 100);
    release[1]!();
    await second;
  });

  it('that its client cancelled the call (notifications/cancelled), as the SDK’s Client does when it gives up', async () => {
    const { backend, seen } = holdingBackend();
    const client = await connected(backend);
    const giveUp = new AbortController();
    const answer = client.callTool({ name: 'memory', arguments: { command: 'delete', path: '/memories/a.md' } }, undefined, { signal: giveUp.signal });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    const signal = seen[0]!.opts?.signal;
    expect(signal?.aborted).toBe(false);
    giveUp.abort('the user pressed stop');
    await expect(answer).rejects.toThrow();
    await vi.waitFor(() => expect(signal?.aborted).toBe(true));
  });

  it('and the same when the SDK’s Client times out on it', async () => {
    const { backend, seen } = holdingBackend();
    const client = await connected(backend);
    const answer = client.callTool({ name: 'memory', arguments: { command: 'delete', path: '/memories/a.md' } }, undefined, { timeout: 200 });
    await expect(answer).rejects.toThrow(/Request timed out/);
    await vi.waitFor(() => expect(seen[0]?.opts?.signal?.aborted).toBe(true));
  });
});
