/**
 * `<vault>/.lock`: who holds the vault (host, pid, start time). It never
 * decides who may open the vault on this computer — the kernel lock does
 * (lockfile.ts) — it only names the holder in messages, refuses a vault held
 * on another computer (vaults live in sync folders, and that computer's kernel
 * cannot answer us), and, on Linux, refuses a vault whose recorded holder on
 * this computer still lives although its kernel lock is not visible here (a
 * file system that keeps locks to itself). A record whose holder has died, or
 * whose pid now belongs to another process, is stale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface LockRecord {
  host: string;
  pid: number;
  started: number;
}

/** This process's start, as the record gives it (ms since the epoch). */
export const STARTED = Math.round(Date.now() - process.uptime() * 1000);
/** Longer than any record this code writes (~80 bytes); anything bigger is not a record. */
const MAX_RECORD_BYTES = 4096;
/** Never follow a link out of the folder; never wait on a FIFO's writer. */
const RECORD_OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
/** How far a process's start time read from /proc may differ from the one it recorded (clock steps, start-up time). */
const START_SLACK_MS = 5000;

const records = new Set<string>();
let exitHookInstalled = false;

/**
 * Reads `.lock`, which anyone with write access to a synced folder controls:
 * only a small regular file is read, so a FIFO, a device behind a link or a
 * huge file can neither hang nor exhaust the process that opens the vault.
 */
export function readRecord(file: string): LockRecord | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, RECORD_OPEN_FLAGS);
  } catch {
    // Missing, or a link (ELOOP): no record this code wrote.
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return undefined;
    const buf = Buffer.alloc(MAX_RECORD_BYTES);
    const n = fs.readSync(fd, buf, 0, MAX_RECORD_BYTES, 0);
    const r = JSON.parse(buf.subarray(0, n).toString('utf8')) as Partial<LockRecord>;
    if (typeof r.host === 'string' && typeof r.pid === 'number' && typeof r.started === 'number') return { host: r.host, pid: r.pid, started: r.started };
  } catch {
    // A missing or old-style (pid only) record says nothing about another computer.
  } finally {
    fs.closeSync(fd);
  }
  return undefined;
}

/**
 * Anything in a name that could disguise a message: C0/C1 controls, line and
 * paragraph separators, bidi embeddings, overrides and isolates, zero-width
 * and other invisible (default-ignorable) characters, private-use, unassigned
 * and lone surrogate code points.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** A host name from a record, fit for a message: visible characters only, and short (the record may be hostile). */
export function shownHost(host: string): string {
  const clean = host.replace(HIDDEN, '?');
  const chars = [...clean];
  return chars.length > 64 ? `${chars.slice(0, 64).join('')}…` : clean;
}

/** True when the record was written by this very process. */
export const mine = (r: LockRecord | undefined): boolean => r?.host === os.hostname() && r.pid === process.pid && r.started === STARTED;

/**
 * True when the record names a process of this computer that is alive now and
 * started when the record says (so not a pid reused since). Only Linux can
 * tell, from /proc; elsewhere the kernel lock alone decides. A zombie is dead:
 * its descriptors, and so its lock, are already gone.
 */
export function holderLives(r: LockRecord): boolean {
  if (process.platform !== 'linux' || r.host !== os.hostname() || mine(r) || !Number.isSafeInteger(r.pid) || r.pid <= 0) return false;
  try {
    const stat = fs.readFileSync(`/proc/${r.pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return false;
    const btime = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1]);
    // starttime (field 22) is in clock ticks since boot; USER_HZ is 100 on every Linux Node runs on.
    const started = btime * 1000 + Number(fields[19]) * 10;
    return Number.isFinite(started) && Math.abs(started - r.started) <= START_SLACK_MS;
  } catch {
    return false;
  }
}

/** Writes this process's record into `dir` (best effort: the record only improves messages). */
export function writeRecord(dir: string, file: string): void {
  const tmp = path.join(dir, `.lock.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, JSON.stringify({ host: os.hostname(), pid: process.pid, started: STARTED }) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
    return;
  }
  records.add(file);
  installExitHook();
}

/** Removes this process's record, if it is still this process's. */
export function removeRecord(file: string): void {
  if (records.delete(file) && mine(readRecord(file))) fs.rmSync(file, { force: true });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const file of [...records]) if (mine(readRecord(file))) fs.rmSync(file, { force: true });
  });
}
