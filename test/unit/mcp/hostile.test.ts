/**
 * A client that misbehaves, on purpose or not: huge inputs, hostile paths and
 * resource URIs, floods of calls, never reading its answers, or going away in
 * the middle of a call. The server stays healthy, bounded and inside the vault,
 * and nothing it acknowledged (or was sent before stdin closed) is lost.
 */
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEEP } from '../../deep';
import { callLine, exited, handshake, initVault, mnemo, RawClient, rssMiB, snapshot, startMcp, toolText, type McpSession } from './helpers';

let v: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  v = await initVault();
});
afterAll(async () => {
  await fs.rm(v.root, { recursive: true, force: true });
});

/** Children started by a test, killed after it if a failure left one running (a running server holds the vault). */
const children = new Set<RawClient>();
function raw(): RawClient {
  const c = new RawClient(v.vault, v.env);
  children.add(c);
  return c;
}
afterEach(async () => {
  for (const c of children) {
    if (c.child.exitCode === null && c.child.signalCode === null) {
      c.child.kill('SIGKILL');
      await exited(c.child);
    }
  }
  children.clear();
});

/** Every file under the test's root outside the vault and the device state: nothing may appear there. */
async function outside(): Promise<string[]> {
  const all = await snapshot(v.root);
  return [...all.keys()].filter((p) => !p.startsWith('vault' + path.sep) && !p.startsWith('state' + path.sep)).sort();
}

describe('with a well-formed client sending hostile input', () => {
  let s: McpSession;
  beforeAll(async () => {
    s = await startMcp(v.vault, v.env, { name: 'hostile' });
    expect((await s.memory({ command: 'create', path: '/memories/base.md', file_text: 'base\n' })).is_error).toBe(false);
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers a 10 MB string with the memory tool’s size error, writes nothing, and keeps serving', async () => {
    const huge = 'x'.repeat(10_000_000);
    const before = await snapshot(v.vault);
    const created = await s.memory({ command: 'create', path: '/memories/big.md', file_text: huge });
    expect(created.is_error).toBe(true);
    expect(created.content).toMatch(/^Error: No change was made: \/memories\/big\.md would be 9\.5M, over the 1M limit for one memory file\./);
    const replaced = await s.memory({ command: 'str_replace', path: '/memories/base.md', old_str: 'base', new_str: huge });
    expect(replaced.content).toMatch(/^Error: No change was made: \/memories\/base\.md would be .*over the 1M limit/);
    expect(await snapshot(v.vault)).toEqual(before);
    expect(await s.memory({ command: 'view', path: '/memories/base.md' })).toEqual({ content: "Here's the content of /memories/base.md with line numbers:\n     1\tbase\n     2\t", is_error: false });
  });

  it('refuses hostile paths with the memory tool’s errors and touches nothing', async () => {
    const before = await snapshot(v.vault);
    const paths = ['/memories/../etc/passwd', '../../etc/passwd', '/etc/passwd', '/memories/a\u0000b', '/memories/%2e%2e%2fsecret', '/memories/%252e%252e/x', '/memories\\..\\x', '/memoriesX/a.md', '/memories//a.md', '/memories/./a.md', `/memories/${'a'.repeat(300)}.md`, '/memories/a\u202eb.md'];
    for (const p of paths) {
      for (const input of [
        { command: 'create', path: p, file_text: 'x' },
        { command: 'view', path: p },
        { command: 'rename', old_path: '/memories/base.md', new_path: p },
      ]) {
        const answer = await s.memory(input);
        expect(answer.is_error, JSON.stringify(input)).toBe(true);
        expect(answer.content).not.toContain(v.root);
      }
    }
    expect(await snapshot(v.vault)).toEqual(before);
    expect(await outside()).toEqual([]);
  });

  it('keeps names that look like links or host paths as plain names inside the vault', async () => {
    const names = ['link -> ..', 'evil..', '~', '$HOME', 'C:', 'con', 'a.lnk', '...x'];
    for (const name of names) {
      const p = `/memories/tricky/${name}`;
      const answer = await s.memory({ command: 'create', path: p, file_text: `text of ${name}` });
      if (answer.is_error) continue;
      const [resource] = (await s.client.listResources()).resources.filter((r) => r.name === p);
      expect(resource, p).toBeDefined();
      expect((await s.client.readResource({ uri: resource!.uri })).contents[0]).toMatchObject({ text: `text of ${name}` });
    }
    expect((await s.client.listResources()).resources.filter((r) => r.name.startsWith('/memories/tricky/')).length).toBeGreaterThan(4);
    expect(await outside()).toEqual([]);
  });

  it('refuses hostile resource URIs (read and subscribe) as invalid, and keeps serving', async () => {
    const uris = [
      'mnemo://memories/../base.md',
      'mnemo://memories/%2e%2e/base.md',
      'mnemo://memories/%2E%2E/%2E%2E/etc/passwd',
      'mnemo://memories/%252e%252e/base.md',
      'mnemo://memories/a%2Fb',
      'mnemo://memories/base.md%00',
      'mnemo://memories/./base.md',
      'mnemo://memories//base.md',
      'mnemo://memoriesX/base.md',
      'file:///etc/passwd',
      'mnemo://memories/base.md?x',
      `mnemo://memories/${'%41'.repeat(2000)}`,
    ];
    for (const uri of uris) {
      await expect(s.client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32602 });
      await expect(s.client.subscribeResource({ uri }), uri).rejects.toMatchObject({ code: -32602 });
    }
    expect((await s.client.readResource({ uri: 'mnemo://memories/base.md' })).contents[0]).toMatchObject({ text: 'base\n' });
  });
});

describe('with a raw client', () => {
  it('answers every one of thousands of calls sent at once: in turn, or at once with the busy error past the queue bound; stdout carries only MCP frames', async () => {
    const n = DEEP ? 20_000 : 1500;
    const c = raw();
    c.send(handshake('flood'));
    await c.response(0);
    c.send(callLine(1, { command: 'create', path: '/memories/flood.md', file_text: 'flood\n' }));
    await c.response(1);
    let lines = '';
    for (let id = 2; id < n + 2; id++) lines += callLine(id, { command: 'view', path: '/memories/flood.md' });
    c.send(lines);
    await c.until(() => c.responses.size === n + 2);
    const texts = [...Array(n).keys()].map((i) => toolText(c.responses.get(i + 2)!));
    const busy = texts.filter((t) => t.isError);
    expect(busy.length).toBeGreaterThan(0);
    expect(new Set(busy.map((t) => t.text))).toEqual(new Set(['Error: Mnemo is busy: 64 memory calls are already waiting. Nothing was done; wait for their answers, then try again.']));
    expect(new Set(texts.filter((t) => !t.isError).map((t) => t.text))).toEqual(new Set(["Here's the content of /memories/flood.md with line numbers:\n     1\tflood\n     2\t"]));
    expect(c.garbage).toEqual([]);
    expect(rssMiB(c.child.pid!)).toBeLessThan(400);
    // Still healthy.
    c.send(callLine(n + 5, { command: 'view', path: '/memories/flood.md' }));
    expect(toolText(await c.response(n + 5)).isError).toBe(false);
    c.child.stdin.end();
    expect(await exited(c.child)).toBe(0);
  });

  it('holds back a client that does not read its answers: no new call starts, then its requests are not read; memory stays bounded; all is answered once it reads', async () => {
    const c = raw();
    c.send(handshake('not reading'));
    await c.response(0);
    // A memory of almost 1 MB: every read of it answers about that much.
    c.send(callLine(1, { command: 'create', path: '/memories/wide.md', file_text: ('y'.repeat(99) + '\n').repeat(9_900) }));
    expect(toolText(await c.response(1)).isError).toBe(false);
    c.child.stdout.pause();
    let id = 2;
    let lines = '';
    for (; id < 302; id++) lines += JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'mnemo://memories/wide.md' } }) + '\n';
    c.send(lines);
    await c.until(() => /holding its calls back/.test(c.stderr));
    // Answers the SDK writes without the queue (tools/list, about 2.5 KB each), until it stops reading too.
    lines = '';
    for (let i = 0; i < 8000; i++) lines += JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/list' }) + '\n';
    c.send(lines);
    await c.until(() => /its requests are not read either/.test(c.stderr));
    // 750 KB more requests: far more than the pipe and a paused reader take, so most stay on this side.
    lines = '';
    for (let i = 0; i < 15_000; i++) lines += JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'ping' }) + '\n';
    c.send(lines);
    expect(c.child.stdin.writableLength).toBeGreaterThan(500_000);
    // Unbounded, 64 reads of 1 MB and 8,000 lists would be over 80 MiB of answers waiting: held to 16 MiB and one
    // answer (what the server reports is its stdout's own count of bytes written and not yet taken).
    const unread = [...c.stderr.matchAll(/\(([\d.]+) MiB unread\)/g)].map((m) => Number(m[1]));
    expect(Math.max(...unread)).toBeLessThan(17);
    c.child.stdout.resume();
    await c.until(() => c.responses.size === id);
    expect(c.garbage).toEqual([]);
    const reads = [...Array(300).keys()].map((i) => c.responses.get(i + 2)!);
    expect(reads.filter((r) => r.result).length).toBeGreaterThan(0);
    for (const r of reads) {
      if (r.error) expect(r.error.message).toMatch(/^Mnemo is busy/);
      else expect((r.result as { contents: Array<{ text: string }> }).contents[0]?.text).toHaveLength(990_000);
    }
    c.child.stdin.end();
    expect(await exited(c.child)).toBe(0);
  });

  it('when stdin closes right after calls were sent, makes every one of them durably, answers every one, and exits 0', async () => {
    const c = raw();
    let lines = handshake('closing');
    for (let i = 1; i <= 20; i++) lines += callLine(i, { command: 'create', path: `/memories/closing/${i}.md`, file_text: `file ${i}\n` });
    c.child.stdin.end(lines);
    expect(await exited(c.child)).toBe(0);
    expect(c.stderr).toMatch(/the client closed the connection; finishing/);
    // Each answer goes out before the exit, the last one too (a client that half-closes still reads them).
    if (!c.child.stdout.closed) await once(c.child.stdout, 'close');
    expect(c.garbage).toEqual([]);
    for (let i = 1; i <= 20; i++) expect(c.responses.has(i) && toolText(c.responses.get(i)!), `answer ${i}`).toEqual({ text: `File created successfully at: /memories/closing/${i}.md`, isError: false });
    const ls = await mnemo(['ls', '/memories/closing', '--vault', v.vault], { env: v.env });
    expect(ls.stdout.trim().split('\n')).toHaveLength(20);
    expect((await mnemo(['verify', '--vault', v.vault], { env: v.env })).code).toBe(0);
  });

  it('when stopped by SIGTERM during a flood, finishes the call running, exits 0 and leaves the vault whole', async () => {
    const c = raw();
    c.send(handshake('terminated'));
    await c.response(0);
    let lines = '';
    for (let i = 1; i <= 200; i++) lines += callLine(i, { command: 'create', path: `/memories/term/${i}.md`, file_text: `term ${i}\n` });
    c.send(lines);
    await c.until(() => c.responses.size > 3);
    c.child.kill('SIGTERM');
    expect(await exited(c.child)).toBe(0);
    const answered = [...c.responses.entries()].filter(([id, r]) => id > 0 && r.result && !toolText(r).isError).map(([id]) => id);
    const ls = await mnemo(['ls', '/memories/term', '--vault', v.vault], { env: v.env });
    const written = ls.stdout.trim().split('\n').map((l) => Number(/\/(\d+)\.md$/.exec(l)?.[1]));
    // Everything acknowledged is there (and perhaps the one running when the signal came).
    for (const id of answered) expect(written).toContain(id);
    expect(written.length - answered.length).toBeLessThanOrEqual(1);
    expect((await mnemo(['verify', '--vault', v.vault], { env: v.env })).code).toBe(0);
  });

  it('drops the connection (and exits 0, nothing written) on a request line longer than it takes', async () => {
    const before = await snapshot(v.vault);
    const c = raw();
    c.send(handshake('too long'));
    await c.response(0);
    c.send(callLine(1, { command: 'create', path: '/memories/too-long.md', file_text: 'z'.repeat(17 * 1024 * 1024) }));
    expect(await exited(c.child)).toBe(0);
    expect(c.responses.has(1)).toBe(false);
    expect(await snapshot(v.vault)).toEqual(before);
  });
});
