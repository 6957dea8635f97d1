/**
 * Shared set-up for the `mnemo mcp` tests: the real CLI bundle (built by the
 * global setup) started as an MCP server, driven by the SDK's own Client over
 * its StdioClientTransport, on vaults made cheaply at the KDF floor.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JSONRPCMessageSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI_BUNDLE } from '../cli/helpers';
import { cliEnv } from '../../test-cli';

export { initVault, mnemo, memoryLines, PASS, snapshot, tempDir } from '../cli/helpers';

export interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** `memory` tool call, answered as { content, is_error } like `mnemo memory` prints it. */
  memory(input: Record<string, unknown>): Promise<{ content: string; is_error: boolean }>;
  close(): Promise<void>;
}

/** Starts `mnemo mcp --vault VAULT …args` with exactly `env` (plus the SDK's default PATH/HOME…), connected as `name`. */
export async function startMcp(vault: string, env: NodeJS.ProcessEnv, opts: { args?: string[]; name?: string } = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BUNDLE, 'mcp', '--vault', vault, ...(opts.args ?? [])],
    env: stringEnv(cliEnv(env)),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const client = new Client({ name: opts.name ?? 'Claude Code', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => err,
    memory: async (input) => answerOf((await client.callTool({ name: 'memory', arguments: input })) as CallToolResult),
    close: () => client.close(),
  };
}

/** A tool result as the memory tool's { content, is_error }: one text block, isError only on errors. */
export function answerOf(result: CallToolResult): { content: string; is_error: boolean } {
  if (result.content.length !== 1 || result.content[0]?.type !== 'text') throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return { content: result.content[0].text, is_error: result.isError === true };
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** `mnemo mcp` as a bare child process, for tests that write raw lines (or stop reading) where a well-behaved client would not. */
export function spawnMcp(vault: string, env: NodeJS.ProcessEnv, args: string[] = []): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI_BUNDLE, 'mcp', '--vault', vault, ...args], { env: cliEnv({ PATH: process.env.PATH, ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
}

/** The JSON-RPC initialize request and initialized notification, as raw lines. */
export function handshake(name = 'raw client'): string {
  return (
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } } }) +
    '\n' +
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
    '\n'
  );
}

/** A raw tools/call line for the memory tool. */
export function callLine(id: number, input: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'memory', arguments: input } }) + '\n';
}

/** Resolves with the exit code once the child has exited. */
export function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** JSON-RPC lines from a bare `mnemo mcp` child: every stdout line is parsed (a line that is not JSON fails the test). */
export class RawClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly responses = new Map<number, { result?: unknown; error?: { code: number; message: string } }>();
  readonly notifications: string[] = [];
  /** Lines on stdout that were not a JSON-RPC message. */
  readonly garbage: string[] = [];
  stderr = '';
  private waiters: Array<() => void> = [];
  private partial = '';

  constructor(vault: string, env: NodeJS.ProcessEnv, args: string[] = []) {
    this.child = spawnMcp(vault, env, args);
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.on('data', (c: Buffer) => {
      this.stderr += c.toString('utf8');
      this.wake();
    });
    this.child.stdout.on('data', (c: Buffer) => {
      const lines = (this.partial + c.toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) this.take(line);
      this.wake();
    });
    this.child.on('exit', () => this.wake());
  }

  send(text: string): boolean {
    return this.child.stdin.write(text);
  }

  /** Resolves once `done()` holds, re-checked at every output of the child. */
  async until(done: () => boolean): Promise<void> {
    while (!done()) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`mnemo mcp exited (${this.child.exitCode ?? this.child.signalCode}) while waiting; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async response(id: number) {
    await this.until(() => this.responses.has(id));
    return this.responses.get(id)!;
  }

  private take(line: string): void {
    let msg: { id?: number; method?: string; result?: unknown; error?: { code: number; message: string } };
    try {
      msg = JSONRPCMessageSchema.parse(JSON.parse(line)) as typeof msg;
    } catch {
      this.garbage.push(line.slice(0, 200));
      return;
    }
    if (typeof msg.id === 'number') {
      if (this.responses.has(msg.id)) this.garbage.push(`a second answer to ${msg.id}`);
      this.responses.set(msg.id, { ...(msg.result !== undefined ? { result: msg.result } : {}), ...(msg.error ? { error: msg.error } : {}) });
    } else if (msg.method) this.notifications.push(msg.method);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** The text of a tools/call result line. */
export function toolText(r: { result?: unknown }): { text: string; isError: boolean } {
  const result = r.result as { content: Array<{ text: string }>; isError?: boolean };
  return { text: result.content[0]!.text, isError: result.isError === true };
}

/** The resident memory of a process, in MiB (ps works on Linux and macOS). */
export function rssMiB(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}
