/**
 * A process sharing a vault (OpenOptions from argv: per call, or as the app
 * does), driven by JSON commands on stdin, one JSON answer line each on
 * stdout. `writer` writes until its count is done or `stop` arrives (or the
 * process is killed), printing `begin` before and `ack` after each change.
 */
import { writeSync } from 'node:fs';
import readline from 'node:readline';
import { Vault } from '../../../electron/core/vault/vault';
import { VaultError, type OpenOptions } from '../../../electron/core/vault/types';

export type Command =
  | { op: 'unlock'; pass: string }
  | { op: 'write'; p: string; text: string }
  | { op: 'read'; p: string }
  | { op: 'lock' }
  | { op: 'close' }
  /**
   * `n` changes (-1: until `stop`): own files under /memories/<who>/, and lines appended to `shared` by
   * read-modify-write; each change's value (`<who>.<run>-<i>`) is unique to the run.
   */
  | { op: 'writer'; who: string; run: number; n: number; seed: number; shared: string }
  | { op: 'stop' };

/** One change of a writer: a file written with `value`, or `value` appended as a line of the shared file. */
export interface Change {
  kind: 'file' | 'line';
  p: string;
  value: string;
}

const [dir, stateDir, optsText] = process.argv.slice(2) as [string, string, string];
const out = (o: object) => writeSync(1, JSON.stringify(o) + '\n');
const failed = (e: unknown) => ({ error: e instanceof VaultError ? e.code : 'ERROR', message: e instanceof Error ? e.message : String(e) });
const upsert = { mode: 'upsert', source: 'cli' } as const;

const vault = await Vault.open(dir, { stateDir, ...(JSON.parse(optsText) as OpenOptions) });
let stopping = false;

async function writer(cmd: Extract<Command, { op: 'writer' }>): Promise<void> {
  let seed = cmd.seed >>> 0 || 1;
  const rand = (n: number) => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return (seed >>> 8) % n;
  };
  for (let i = 0; i !== cmd.n && !stopping; i++) {
    const value = `${cmd.who}.${cmd.run}-${i}`;
    const change: Change = rand(10) < 7 ? { kind: 'file', p: `/memories/${cmd.who}/k${rand(6)}.md`, value } : { kind: 'line', p: cmd.shared, value };
    out({ begin: change });
    if (change.kind === 'file') {
      // 1 to 16 KiB, so checkpoints find segments worth compacting.
      await vault.memory.writeFile(change.p, `${value}\n` + 'x'.repeat(1024 * (1 + rand(16))), upsert);
    } else {
      await vault.exclusive(async (ops) => {
        const now = ops.stat(change.p) ? await ops.readFile(change.p) : '';
        await ops.writeFile(change.p, `${now}${value}\n`, upsert);
      });
    }
    out({ ack: change });
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (l) => {
  if ((JSON.parse(l) as Command).op === 'stop') stopping = true;
});
out({ ready: true });
for await (const line of lines) {
  const cmd = JSON.parse(line) as Command;
  try {
    switch (cmd.op) {
      case 'unlock':
        await vault.unlock(cmd.pass);
        out({ ok: true });
        break;
      case 'write':
        await vault.memory.writeFile(cmd.p, cmd.text, upsert);
        out({ ok: true });
        break;
      case 'read':
        out({ ok: true, text: await vault.memory.readFile(cmd.p) });
        break;
      case 'lock':
        vault.lock();
        out({ ok: true });
        break;
      case 'close':
        await vault.close();
        out({ ok: true });
        break;
      case 'writer':
        await writer(cmd);
        out({ done: true });
        break;
      case 'stop':
        break;
    }
  } catch (e) {
    out(failed(e));
  }
}
