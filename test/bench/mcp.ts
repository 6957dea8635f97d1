/**
 * `npm run bench:mcp`: the latency of one `memory` call through `mnemo mcp`
 * (the SDK's Client over stdio to the bundled CLI), against the same call
 * through `mnemo memory` (one process, one JSON line in and one out) on a vault
 * of the same size, and against the SDK's plaintext local-filesystem memory
 * tool called in-process (no encryption, no process boundary: the floor).
 * Also `mnemo mcp` driven by bare JSON-RPC lines (no client SDK), which tells
 * the server's own share from the SDK client's.
 * `view` of a file and `create` of a new file, interleaved so every figure
 * sees the same machine load; medians, printed as ratios (target: MCP ≤ 1.5×
 * `mnemo memory`). Then one JSON line. Benches never assert.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bundleCli, CLI_BUNDLE } from '../../electron/cli/bundle';
import { runMemoryCommand } from '../../electron/core/memory/run';

const CALLS = Number(process.env.MNEMO_BENCH_CALLS ?? 300);
/** Memories in each vault before measuring, so a call works on a vault that holds something. */
const FILES = Number(process.env.MNEMO_BENCH_FILES ?? 100);
const PASS = 'bench passphrase that is long enough';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function run(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<void> {
  const child = spawn(process.execPath, [CLI_BUNDLE, ...args], { env, stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${args[0]} failed: ${err}`)))));
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

await bundleCli({ ifStale: true });
const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bench-mcp-'));
try {
  const env = { PATH: process.env.PATH ?? '', HOME: root, XDG_STATE_HOME: path.join(root, 'state'), MNEMO_PASSPHRASE: PASS };
  const seed = Array.from({ length: FILES }, (_, i) => JSON.stringify({ command: 'create', path: `/memories/seed/${i}.md`, file_text: `memory ${i}\n`.repeat(20) })).join('\n') + '\n';
  const vaults = { mcp: path.join(root, 'mcp'), raw: path.join(root, 'raw'), cli: path.join(root, 'cli') };
  for (const dir of Object.values(vaults)) {
    await run(['init', '--vault', dir, '--kdf-ops', '2', '--kdf-mem', '64', '--allow-weak'], env);
    await run(['memory', '--vault', dir], env, seed);
  }

  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BUNDLE, 'mcp', '--vault', vaults.mcp], env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const viaMcp = (input: Record<string, unknown>) => client.callTool({ name: 'memory', arguments: input });

  // The same server spoken to in bare JSON-RPC lines: the answer line is all that is waited for.
  const raw = spawn(process.execPath, [CLI_BUNDLE, 'mcp', '--vault', vaults.raw], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const rawLines = readline.createInterface({ input: raw.stdout })[Symbol.asyncIterator]();
  let rawId = 0;
  const rawCall = async (method: string, params: unknown) => {
    const id = ++rawId;
    raw.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    // Notifications (list_changed after a write) come on the same stream: skip to this call's answer.
    for (;;) {
      const line = (await rawLines.next()).value as string;
      if ((JSON.parse(line) as { id?: number }).id === id) return line;
    }
  };
  await rawCall('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench raw', version: '1' } });
  raw.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const viaRaw = (input: Record<string, unknown>) => rawCall('tools/call', { name: 'memory', arguments: input });

  const cli = spawn(process.execPath, [CLI_BUNDLE, 'memory', '--vault', vaults.cli], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = readline.createInterface({ input: cli.stdout })[Symbol.asyncIterator]();
  const viaCli = async (input: Record<string, unknown>) => {
    cli.stdin.write(JSON.stringify(input) + '\n');
    return (await lines.next()).value as string;
  };

  const refBase = path.join(root, 'reference');
  const reference = await BetaLocalFilesystemMemoryTool.init(refBase);
  const viaReference = (input: Record<string, unknown>) => runMemoryCommand(reference, input);
  for (let i = 0; i < FILES; i++) await viaReference({ command: 'create', path: `/memories/seed/${i}.md`, file_text: `memory ${i}\n`.repeat(20) });

  // Warm-up: the first call through MCP unlocks the vault (one Argon2id), as `mnemo memory` did at its start.
  const view = { command: 'view', path: '/memories/seed/7.md' };
  for (let i = 0; i < 10; i++) await Promise.all([viaMcp(view), viaRaw(view), viaCli(view), viaReference(view)]);

  const none = () => ({ view: [] as number[], create: [] as number[] });
  const times = { mcp: none(), raw: none(), cli: none(), reference: none() };
  for (let i = 0; i < CALLS; i++) {
    const create = { command: 'create', path: `/memories/bench/${i}.md`, file_text: `a new memory, number ${i}\n`.repeat(10) };
    times.mcp.view.push(await timed(() => viaMcp(view)));
    times.raw.view.push(await timed(() => viaRaw(view)));
    times.cli.view.push(await timed(() => viaCli(view)));
    times.reference.view.push(await timed(() => viaReference(view)));
    times.mcp.create.push(await timed(() => viaMcp(create)));
    times.raw.create.push(await timed(() => viaRaw(create)));
    times.cli.create.push(await timed(() => viaCli(create)));
    times.reference.create.push(await timed(() => viaReference(create)));
  }
  await client.close();
  // Each checkpoints as it closes: the folders are removed only after.
  const closed = [cli, raw].map((child) => new Promise((resolve) => child.once('close', resolve)));
  cli.stdin.end();
  raw.stdin.end();
  await Promise.all(closed);

  const r = (x: number) => Math.round(x * 100) / 100;
  const figures = Object.fromEntries(
    (['view', 'create'] as const).map((cmd) => {
      const [m, w, c, f] = [median(times.mcp[cmd]), median(times.raw[cmd]), median(times.cli[cmd]), median(times.reference[cmd])];
      const [mf, cf] = [Math.min(...times.mcp[cmd]), Math.min(...times.cli[cmd])];
      return [
        cmd,
        { mcpMs: r(m), mcpRawMs: r(w), mnemoMemoryMs: r(c), referenceMs: r(f), mcpOverMnemoMemory: r(m / c), mcpRawOverMnemoMemory: r(w / c), mcpOverReference: r(m / f), fastestMcpMs: r(mf), fastestMnemoMemoryMs: r(cf) },
      ];
    }),
  );
  console.log(`memory calls, median of ${CALLS} each, on vaults of ${FILES} memories (plus what the run creates)`);
  for (const [cmd, f] of Object.entries(figures)) {
    console.log(
      `${cmd.padEnd(7)} mnemo mcp ${f.mcpMs} ms (bare JSON-RPC lines: ${f.mcpRawMs} ms) · mnemo memory ${f.mnemoMemoryMs} ms · SDK plaintext tool in-process ${f.referenceMs} ms → MCP ${f.mcpOverMnemoMemory}× mnemo memory (target ≤ 1.5×; bare ${f.mcpRawOverMnemoMemory}×), ${f.mcpOverReference}× the plaintext tool; fastest: MCP ${f.fastestMcpMs} ms, mnemo memory ${f.fastestMnemoMemoryMs} ms`,
    );
  }
  console.log(JSON.stringify({ calls: CALLS, files: FILES, ...figures }));
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
