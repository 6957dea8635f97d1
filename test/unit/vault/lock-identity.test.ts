/**
 * The vault lock follows the folder, not the name it is reached by: a second
 * process that reaches the same folder through a bind mount (another path, its
 * own mount namespace) or from another network namespace (a sandboxed app, a
 * container) is refused while the first holds it. Each case needs `unshare`;
 * where the kernel refuses it the case is skipped with the reason printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../electron/core/vault/lockfile';
import { cleanupsAfterEach, lineChild, madeVault as madeVaultIn, type Child } from './lock-children';
import { pinFormat1 } from './helpers';

const CHILD = path.join(import.meta.dirname, 'lock-child.ts');
const NODE = [process.execPath, '--import', 'tsx', CHILD];

/** Starts lock-child.ts under `prefix` (an unshare command line, or none); it opens the vault when told "go". */
function start(prefix: string[], dir: string, stateDir: string): Child {
  const argv = [...prefix, ...NODE, dir, stateDir];
  return lineChild(spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] }));
}

async function openIn(child: Child): Promise<string> {
  expect(await child.next()).toBe('ready');
  child.proc.stdin.write('go\n');
  return child.next();
}

/** Why `unshare args` cannot run here, or undefined when it can. */
function unshareRefused(args: string[]): string | undefined {
  const r = spawnSync('unshare', [...args, 'true'], { encoding: 'utf8' });
  if (r.error) return `unshare is not available (${r.error.message})`;
  return r.status === 0 ? undefined : `unshare ${args.join(' ')} was refused: ${r.stderr.trim()}`;
}

const cleanup = cleanupsAfterEach();
const madeVault = () => madeVaultIn('mnemo-lockid-', cleanup);

function holding(child: Child): void {
  cleanup(async () => {
    child.proc.stdin.end();
    child.proc.kill('SIGKILL');
    await child.exited;
  });
}

describe('one vault, one holder, however the folder is reached', () => {
  it('a process reaching the folder through a bind mount at another path is refused while the first holds it', async (ctx) => {
    const refused = unshareRefused(['-m']);
    if (refused) {
      console.warn(`skipped: ${refused}`);
      ctx.skip();
    }
    const { root, dir, state } = await madeVault();
    const other = path.join(root, 'elsewhere');
    await fs.mkdir(other);
    const first = start([], dir, state);
    holding(first);
    expect(await openIn(first)).toBe('won');
    // In its own mount namespace the child sees the vault at `other`, a path whose real path is not the vault's.
    const script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"';
    const second = start(['unshare', '-m', 'sh', '-c', script, 'sh', dir, other], other, state);
    holding(second);
    expect(await openIn(second)).toMatch(/^IN_USE /);
  }, 60_000);

  it('a process in another network namespace is refused while the first holds it', async (ctx) => {
    const refused = unshareRefused(['-n']);
    if (refused) {
      console.warn(`skipped: ${refused}`);
      ctx.skip();
    }
    const { dir, state } = await madeVault();
    const first = start([], dir, state);
    holding(first);
    expect(await openIn(first)).toBe('won');
    const second = start(['unshare', '-n'], dir, state);
    holding(second);
    expect(await openIn(second)).toMatch(/^IN_USE /);
    // And the other way round, once the first has gone: the kernel freed its lock when it died.
    first.proc.kill('SIGKILL');
    await first.exited;
    const third = start(['unshare', '-n'], dir, state);
    holding(third);
    expect(await openIn(third)).toBe('won');
  }, 60_000);

  it('a holder killed with SIGKILL frees the vault at once, while it is still an unreaped zombie with its record left behind', async (ctx) => {
    // Format 1: about the holder record .lock in the vault folder (format 2 keeps it in the state folder)
    pinFormat1();
    // The holder's parent (python3) never reaps it, as a slow PID 1 in a container does not for a while.
    const python = spawnSync('python3', ['-c', 'print(1)'], { encoding: 'utf8' });
    if (python.status !== 0 || process.platform !== 'linux') {
      console.warn('skipped: needs python3 (a parent that does not reap) and /proc');
      ctx.skip();
    }
    const { dir, state } = await madeVault();
    const reaper = 'import subprocess, sys, time\np = subprocess.Popen(sys.argv[1:])\nprint(p.pid, flush=True)\ntime.sleep(120)\n';
    const first = start(['python3', '-c', reaper], dir, state);
    holding(first);
    const holderPid = Number(await first.next());
    expect(await openIn(first)).toBe('won');
    process.kill(holderPid, 'SIGKILL');
    let stateLetter = '';
    for (let i = 0; i < 200 && stateLetter !== 'Z'; i++) {
      stateLetter = (await fs.readFile(`/proc/${holderPid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[0]!;
      if (stateLetter !== 'Z') await new Promise((r) => setTimeout(r, 10));
    }
    expect(stateLetter).toBe('Z');
    // Its record still names it, a pid that still exists.
    expect(JSON.parse(await fs.readFile(path.join(dir, '.lock'), 'utf8'))).toMatchObject({ pid: holderPid });
    const second = start([], dir, state);
    holding(second);
    expect(await openIn(second)).toBe('won');
  }, 60_000);

  it('the same folder through a symlink, from this very process, is refused', async () => {
    const { root, dir } = await madeVault();
    const link = path.join(root, 'link');
    await fs.symlink(dir, link);
    const release = await acquireLock(dir);
    try {
      await expect(acquireLock(link)).rejects.toMatchObject({ code: 'IN_USE' });
    } finally {
      release();
    }
  });

  it('a same-computer lock record is not stale while the process it names lives', async () => {
    if (process.platform !== 'linux') return;
    const { dir } = await madeVault();
    // A live process on this computer that holds the vault by a lock this one cannot see (a file system that keeps locks to itself).
    const holder = spawn('sleep', ['60']);
    cleanup(async () => {
      holder.kill('SIGKILL');
    });
    const stat = (await fs.readFile(`/proc/${holder.pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    const btime = Number(/^btime (\d+)$/m.exec(await fs.readFile('/proc/stat', 'utf8'))![1]);
    const started = btime * 1000 + Number(stat[19]) * 10;
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ host: os.hostname(), pid: holder.pid, started }) + '\n');
    await expect(acquireLock(dir)).rejects.toMatchObject({ code: 'IN_USE', message: expect.stringMatching(/open in another Mnemo window or mnemo command/) });
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.on('close', resolve));
    // Its holder gone, the record is stale: the vault opens.
    (await acquireLock(dir))();
  });
});
