/**
 * One process per vault. Liveness comes from the kernel, never from a pid: the
 * lock is a resource the kernel frees the instant its holder dies (even while
 * the dead process lingers as a zombie), so taking over a crashed holder's lock
 * is atomic and a reused pid can never keep a vault shut.
 *
 * - Linux: an abstract-namespace Unix socket named after the vault's real path.
 * - Windows: a named pipe with the same name (also freed by the kernel).
 * - macOS/BSD: a file in the per-user temp folder opened with O_EXLOCK|O_NONBLOCK
 *   (a flock the kernel drops when the descriptor closes at death).
 *
 * `<vault>/.lock` records the holder's host, pid and start time, only so the
 * message can name where the vault is open. Vaults live in sync folders, so a
 * record written by another computer refuses the vault with that computer's
 * name (its kernel cannot tell us whether it still holds it); deleting `.lock`
 * overrides that once the other computer is known to be closed.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { hash, toHex, utf8 } from './crypto';
import { VaultError } from './types';

export interface LockOptions {
  /** Take the kernel lock but write nothing in the vault folder (read-only commands change no byte or mtime there). */
  readOnly?: boolean;
}

interface LockRecord {
  host: string;
  pid: number;
  started: number;
}

const inUse = () => new VaultError('IN_USE', 'The vault is open in another Mnemo window or mnemo command; close it there first.');
const STARTED = Math.round(Date.now() - process.uptime() * 1000);
const records = new Set<string>();
let exitHookInstalled = false;

/** A name for the vault's kernel lock: the same for every path that reaches the same folder. */
function lockName(dir: string): string {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch {
    real = path.resolve(dir);
  }
  return `mnemo-vault-${toHex(hash(utf8(real)))}`;
}

/** Listens on `address`; resolves with the server, or undefined when another listener (a live holder) has it. */
function listenExclusive(address: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE' || e.code === 'EACCES') resolve(undefined);
      else reject(new VaultError('IO', 'Could not lock the vault for this process.'));
    });
    server.listen({ path: address, exclusive: true }, () => {
      // The lock must not keep a finished CLI command alive.
      server.unref();
      resolve(server);
    });
  });
}

/** Darwin/BSD open(2) flags: O_RDWR | O_CREAT | O_NONBLOCK | O_EXLOCK. */
const BSD_EXLOCK_FLAGS = 0x0002 | 0x0200 | 0x0004 | 0x0020;

/** Takes the kernel-held lock; returns its release, or undefined if a live process holds it. */
async function kernelLock(name: string): Promise<(() => void) | undefined> {
  if (process.platform === 'linux' || process.platform === 'android') {
    const server = await listenExclusive(`\0${name}`);
    return server && (() => server.close());
  }
  if (process.platform === 'win32') {
    const server = await listenExclusive(`\\\\.\\pipe\\${name}`);
    return server && (() => server.close());
  }
  if (process.platform === 'darwin' || process.platform === 'freebsd' || process.platform === 'openbsd') {
    let fd: number;
    try {
      fd = fs.openSync(path.join(os.tmpdir(), `${name}.lock`), BSD_EXLOCK_FLAGS, 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EWOULDBLOCK' || code === 'EAGAIN') return undefined;
      throw new VaultError('IO', 'Could not lock the vault for this process.');
    }
    return () => fs.closeSync(fd);
  }
  throw new VaultError('IO', 'This operating system has no vault lock Mnemo can use; the vault was not opened.');
}

/** Longer than any record this code writes (~80 bytes); anything bigger is not a record. */
const MAX_RECORD_BYTES = 4096;
/** Never follow a link out of the folder; never wait on a FIFO's writer. */
const RECORD_OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads `.lock`, which anyone with write access to a synced folder controls:
 * only a small regular file is read, so a FIFO, a device behind a link or a
 * huge file can neither hang nor exhaust the process that opens the vault.
 */
function readRecord(file: string): LockRecord | undefined {
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

/** A host name from a record, fit for a message: printable and short (the record may be hostile). */
function shownHost(host: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = host.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

const mine = (r: LockRecord | undefined): boolean => r?.host === os.hostname() && r.pid === process.pid && r.started === STARTED;

/**
 * Takes the vault's process lock; IN_USE if a live process (this one included)
 * holds it, or if the lock record says the vault is open on another computer.
 */
export async function acquireLock(dir: string, opts: LockOptions = {}): Promise<() => void> {
  const releaseKernel = await kernelLock(lockName(dir));
  if (!releaseKernel) throw inUse();
  const file = path.join(dir, '.lock');
  const record = readRecord(file);
  if (record && record.host !== os.hostname()) {
    releaseKernel();
    throw new VaultError(
      'IN_USE',
      `The vault is open on ${shownHost(record.host)} (it is in a shared or synced folder). Close Mnemo there first; if that computer is off or crashed, delete the file .lock in the vault folder and try again.`,
    );
  }
  // Any record from this computer is stale now: its holder would still hold the kernel lock.
  if (!opts.readOnly) writeRecord(dir, file);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (records.delete(file) && mine(readRecord(file))) fs.rmSync(file, { force: true });
    releaseKernel();
  };
}

function writeRecord(dir: string, file: string): void {
  const tmp = path.join(dir, `.lock.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, JSON.stringify({ host: os.hostname(), pid: process.pid, started: STARTED }) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // The record only improves a message; the kernel lock is what excludes.
    fs.rmSync(tmp, { force: true });
    return;
  }
  records.add(file);
  installExitHook();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const file of [...records]) if (mine(readRecord(file))) fs.rmSync(file, { force: true });
  });
}
