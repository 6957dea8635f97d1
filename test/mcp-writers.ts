/**
 * Real writers on one vault, for the concurrency and kill tests of `mnemo mcp`
 * (vitest and Playwright alike, so nothing here imports either): `mnemo mcp`
 * driven by the MCP SDK's own Client over stdio, `mnemo memory` fed one JSON
 * line at a time, a loop that makes each writer create its own files and
 * insert lines into one shared file, and a ledger of every write begun and
 * every write acknowledged, checked against the vault afterwards.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliEnv, TEST_CLI_BUNDLE as CLI_BUNDLE } from './test-cli';

export type Answer = { content: string; is_error: boolean };

/** A writer process: one memory-tool call at a time (or several in flight), and its end. */
export interface WriterProcess {
  readonly name: string;
  readonly pid: number;
  memory(input: Record<string, unknown>): Promise<Answer>;
  /** Resolves once the process has exited and been reaped (its 'close' event), however it ended. */
  readonly gone: Promise<void>;
  stderr(): string;
  /** SIGKILL, then wait until it is gone. */
  kill(): Promise<void>;
  /** Ends it the way its client would (stdin closed), then waits until it is gone. */
  close(): Promise<void>;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** `mnemo mcp --vault VAULT` (the tests' build of the CLI, test/test-cli.ts: build it first), connected with the SDK's Client as `name`. */
export async function startMcpWriter(vault: string, env: NodeJS.ProcessEnv, name: string): Promise<WriterProcess> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BUNDLE, 'mcp', '--vault', vault], env: stringEnv(cliEnv(env)), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const client = new Client({ name, version: '1.0.0' });
  // The transport says it closed on the child's 'close' event: it has exited and Node has reaped it.
  let markGone!: () => void;
  const gone = new Promise<void>((resolve) => (markGone = resolve));
  await client.connect(transport);
  client.onclose = markGone;
  const pid = transport.pid;
  if (pid === null) throw new Error('mnemo mcp did not start');
  return {
    name,
    pid,
    gone,
    stderr: () => err,
    memory: async (input) => answerOf((await client.callTool({ name: 'memory', arguments: input }, undefined, { timeout: 120_000 })) as CallToolResult),
    kill: async () => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await gone;
    },
    close: async () => {
      await client.close();
      await gone;
    },
  };
}

function answerOf(result: CallToolResult): Answer {
  if (result.content.length !== 1 || result.content[0]?.type !== 'text') throw new Error(`expected one text block, got ${JSON.stringify(result.content)}`);
  return { content: result.content[0].text, is_error: result.isError === true };
}

/** `mnemo memory --vault VAULT`, fed one JSON line per call; its answers come back in order, one line each. */
export function startMemoryWriter(vault: string, env: NodeJS.ProcessEnv): WriterProcess {
  const child = spawn(process.execPath, [CLI_BUNDLE, 'memory', '--vault', vault], { env: stringEnv(cliEnv(env)), stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  child.stdin.on('error', () => undefined);
  const waiting: Array<{ resolve: (a: Answer) => void; reject: (e: Error) => void }> = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line) as Answer));
  const gone = new Promise<void>((resolve) =>
    child.on('close', () => {
      for (const w of waiting.splice(0)) w.reject(new Error(`mnemo memory ended before answering; stderr: ${err}`));
      resolve();
    }),
  );
  return {
    name: 'mnemo memory',
    pid: child.pid!,
    gone,
    stderr: () => err,
    memory: (input) =>
      new Promise<Answer>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(JSON.stringify(input) + '\n');
      }),
    kill: async () => {
      child.kill('SIGKILL');
      await gone;
    },
    close: async () => {
      child.stdin.end();
      await gone;
    },
  };
}

/**
 * Every write begun and every write acknowledged (a non-error answer). A file
 * each writer creates once, with a text of its own; a line inserted at the top
 * of the shared file.
 */
export class Ledger {
  private readonly files = new Map<string, { text: string; acked: boolean }>();
  private readonly lines = new Map<string, boolean>();
  /** Error answers, by writer: a test decides which (if any) it allows. */
  readonly errors: string[] = [];
  acks = 0;

  constructor(readonly shared: string) {}

  /** Files and lines `who` got acknowledged. */
  ackedBy(who: string): { files: string[]; lines: string[] } {
    const mine = (s: string) => s.includes(`/${who}-`) || s.startsWith(`${who}-`);
    return {
      files: [...this.files].filter(([p, f]) => f.acked && mine(p)).map(([p]) => p),
      lines: [...this.lines].filter(([l, acked]) => acked && mine(l)).map(([l]) => l),
    };
  }

  /**
   * One write through `w`: begun before it is sent, acknowledged on a non-error answer. Resolves false when the
   * call got no answer (the process went away) or an error answer.
   */
  async write(w: Pick<WriterProcess, 'memory'>, who: string, write: { file: string; text: string } | { line: string }): Promise<boolean> {
    const input =
      'file' in write
        ? (this.files.set(write.file, { text: write.text, acked: false }), { command: 'create', path: write.file, file_text: write.text })
        : (this.lines.set(write.line, false), { command: 'insert', path: this.shared, insert_line: 0, insert_text: write.line });
    let answer: Answer;
    try {
      answer = await w.memory(input);
    } catch {
      return false;
    }
    if (answer.is_error) {
      this.errors.push(`${who}: ${answer.content}`);
      return false;
    }
    if ('file' in write) this.files.get(write.file)!.acked = true;
    else this.lines.set(write.line, true);
    this.acks++;
    return true;
  }

  /**
   * What is wrong with the vault as `read` shows it (a memory's text, undefined if absent): an acknowledged file
   * missing or changed, a file begun but not acknowledged holding another text, an acknowledged line missing, any
   * line twice, or a line no writer wrote. Empty when all is well.
   */
  async problems(read: (path: string) => Promise<string | undefined>): Promise<string[]> {
    const out: string[] = [];
    for (const [p, f] of this.files) {
      const now = await read(p);
      if (now === undefined ? f.acked : now !== f.text) out.push(`${p}: ${now === undefined ? 'missing' : `holds ${JSON.stringify(now.slice(0, 80))}`} (${f.acked ? 'acknowledged' : 'begun'})`);
    }
    const got = ((await read(this.shared)) ?? '').split('\n').filter((l) => l.trim() !== '');
    const seen = new Set<string>();
    for (const l of got) {
      if (seen.has(l)) out.push(`${this.shared}: line ${l} twice`);
      seen.add(l);
      if (!this.lines.has(l)) out.push(`${this.shared}: line ${l} that no writer wrote`);
    }
    for (const [l, acked] of this.lines) if (acked && !seen.has(l)) out.push(`${this.shared}: acknowledged line ${l} lost`);
    return out;
  }
}

/**
 * `who` writes through `w` until `n` rounds are done or `stop()` holds: each round creates `/memories/<who>-<i>.md`
 * and inserts the line `<who>-<i>` into the shared file. Stops early when the process goes away. Resolves with the
 * rounds whose both writes were acknowledged.
 */
export async function writeRounds(w: Pick<WriterProcess, 'memory'>, who: string, ledger: Ledger, opts: { n?: number; stop?: () => boolean; onAck?: () => void }): Promise<number> {
  let done = 0;
  for (let i = 0; opts.n === undefined || i < opts.n; i++) {
    if (opts.stop?.()) break;
    // No answer (the process went away) or an error answer ends the rounds: the test decides whether that was allowed.
    if (!(await ledger.write(w, who, { file: `/memories/${who}-${i}.md`, text: `${who} wrote note ${i}` }))) break;
    opts.onAck?.();
    if (!(await ledger.write(w, who, { line: `${who}-${i}` }))) break;
    opts.onAck?.();
    done++;
  }
  return done;
}

/** A memory's text as the memory tool's `view` shows it through `w` (numbered lines), or undefined when it does not exist. */
export async function viewText(w: Pick<WriterProcess, 'memory'>, path: string): Promise<string | undefined> {
  const a = await w.memory({ command: 'view', path });
  if (a.is_error) {
    if (a.content.includes('does not exist')) return undefined;
    throw new Error(`view ${path}: ${a.content}`);
  }
  const [head, ...lines] = a.content.split('\n');
  if (head !== `Here's the content of ${path} with line numbers:`) throw new Error(`view ${path}: ${head}`);
  return lines.map((l) => l.slice(l.indexOf('\t') + 1)).join('\n');
}
