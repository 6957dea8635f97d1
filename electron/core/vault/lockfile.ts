/**
 * One process per vault, however its folder is reached. Liveness comes from
 * the kernel, never from a pid: the lock is a byte-range lock held on an open
 * descriptor of `<vault>/.vault.lock`, a file inside the folder, so its
 * identity is the folder's (device and inode) — a symlink, a bind mount, another
 * mount or network namespace all reach the same lock — and the kernel drops it
 * the instant its holder dies, even while the dead process lingers as a zombie.
 *
 * The lock (fs-native-extensions) is per open file description on every
 * platform (Linux F_OFD_SETLK, macOS flock, Windows LockFileEx), so a second
 * open in the same process is refused like any other.
 *
 * `.vault.lock` is empty; it is made by the first writer (or `create`) and never
 * written, replaced or removed, so every holder locks the same inode. A
 * read-only open writes nothing in the folder: it takes a shared lock (readers
 * may run side by side; a writer excludes them all) on `.vault.lock`, or, in a
 * vault no writer has opened since locks lived there, on vault.json — which
 * every writer locks exclusively as well, and keeps locked while the vault is
 * open: `.vault.lock` removed or replaced under a live holder (a clean-up of
 * "lock files", a sync tool) must not let a second writer in.
 *
 * `<vault>/.lock` records the holder, only for messages (lockrecord.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { holderLives, readRecord, removeRecord, shownHost, writeRecord } from './lockrecord';
import { diskFull } from './files';
import { m, type LocalMessage } from '../i18n/message';
import { VaultError } from './types';

export { shownHost } from './lockrecord';

export interface LockOptions {
  /** Take a shared kernel lock but write nothing in the vault folder (read-only commands change no byte or mtime there). */
  readOnly?: boolean;
  /**
   * While a process of this computer holds the vault, try again for up to this
   * many ms, with a short randomised backoff (default 0: IN_USE at once). The
   * per-call holders (vault.ts `hold`) wait so, since each lets go within moments.
   */
  waitMs?: number;
}

/** The file the kernel lock is held on. Ends in `.lock`, so backups leave it out. */
export const LOCK_FILE = '.vault.lock';
const HEADER_FILE = 'vault.json';
/** Lock one byte far past the end of the file: on Windows a locked range cannot be read, and vault.json must stay readable. */
const LOCK_AT = 2 ** 40;
/** A writer keeps vault.json locked all session, except on Windows, where a file held open cannot be replaced by a rename. */
const KEEP_HEADER = process.platform !== 'win32';

const inUse = (pid?: number) => new VaultError('IN_USE', pid ? m('errors:lock.inUseBy', { pid }) : m('errors:lock.inUse'));
const cannotLock = (why: LocalMessage = m('errors:lock.cannotLock')) => new VaultError('IO', why);

const O = fs.constants;
const NOFOLLOW = O.O_NOFOLLOW ?? 0;
const NONBLOCK = O.O_NONBLOCK ?? 0;

interface NativeLocks {
  tryLock(fd: number, offset: number, length: number, opts: { shared: boolean }): boolean;
  unlock(fd: number, offset: number, length: number): void;
}
let native: Promise<NativeLocks> | undefined;

/** The native lock calls, loaded on first use so a platform without them fails only here, with a message. */
function locks(): Promise<NativeLocks> {
  native ??= import('fs-native-extensions').then(
    (m) => ((m as { default?: NativeLocks }).default ?? m) as NativeLocks,
    () => {
      native = undefined;
      throw cannotLock(m('errors:lock.noModule'));
    },
  );
  return native;
}

/** Takes the lock on `fd` (at byte `at`): true if taken, false if another open file holds a conflicting one. */
function take(n: NativeLocks, fd: number, shared: boolean, at = LOCK_AT): boolean {
  try {
    return n.tryLock(fd, at, 1, { shared });
  } catch (e) {
    // Windows says a held range is busy or a lock violation rather than EAGAIN.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EBUSY' || code === 'EACCES') return false;
    throw cannotLock();
  }
}

function closeQuietly(fd: number): void {
  if (fd === NOT_ON_DISK) return;
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed; closing is what releases the lock anyway.
  }
}

/** Opens `file` without following a link; undefined if it does not exist. A non-regular file refuses the vault. */
function openFile(file: string, flags: number): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, flags | NOFOLLOW | NONBLOCK, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw cannotLock(m('errors:lock.isLink', { file: path.basename(file) }));
    if (code === 'EISDIR') throw cannotLock(m('errors:lock.notAFile', { file: path.basename(file) }));
    if (code === 'ENOSPC' || code === 'EDQUOT') throw diskFull(m('errors:io.action.makeLockFile', { file: path.basename(file) }));
    throw cannotLock(code === 'EACCES' || code === 'EPERM' ? m('errors:lock.denied') : code === 'EROFS' ? m('errors:lock.readOnlyDisk') : undefined);
  }
  if (!fs.fstatSync(fd).isFile()) {
    closeQuietly(fd);
    throw cannotLock(m('errors:lock.notAFile', { file: path.basename(file) }));
  }
  return fd;
}

/** True while `fd` is still the file at `file` (not removed or replaced between the open and the lock). */
function stillThere(fd: number, file: string): boolean {
  try {
    const a = fs.fstatSync(fd);
    const b = fs.lstatSync(file);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/**
 * Locks `file` (opened with `flags`): the descriptor holding the lock,
 * undefined when the file does not exist, or null when a live holder has it.
 */
function lockFile(n: NativeLocks, file: string, flags: number, shared: boolean): number | null | undefined {
  for (let attempt = 0; attempt < 5; attempt++) {
    const fd = openFile(file, flags);
    if (fd === undefined) return undefined;
    if (!take(n, fd, shared)) {
      closeQuietly(fd);
      return null;
    }
    if (stillThere(fd, file)) return fd;
    // Someone replaced the file between our open and our lock: lock the one that is there now.
    closeQuietly(fd);
  }
  throw cannotLock();
}

/** What a process holds: `.vault.lock`, and vault.json (when the vault has one) for as long as the vault is open. */
interface Held {
  lock: number;
  header: number | undefined;
}

/** Locks vault.json exclusively: its descriptor, undefined when it cannot be locked (missing, not writable), null when held elsewhere. */
function headerLock(n: NativeLocks, dir: string): number | null | undefined {
  try {
    return lockFile(n, path.join(dir, HEADER_FILE), O.O_RDWR, false);
  } catch {
    // vault.json not writable or odd: nothing can be locked there, and readers of it do not exist then.
    return undefined;
  }
}

/**
 * The kernel lock for a writer: `.vault.lock` exclusively, and vault.json too,
 * which excludes a reader that locked it (a vault that had no .vault.lock when
 * it opened) and is kept for the whole session: should `.vault.lock` be removed
 * or replaced while the vault is open, the next writer still finds vault.json
 * held and is refused. (Not on Windows, where an open file may not be replaced.)
 */
function writerLock(n: NativeLocks, dir: string): Held | null {
  const fd = lockFile(n, path.join(dir, LOCK_FILE), O.O_RDWR | O.O_CREAT, false);
  if (fd === undefined) throw cannotLock();
  if (fd === null) return null;
  const header = headerLock(n, dir);
  if (header === null) {
    closeQuietly(fd);
    return null;
  }
  if (header !== undefined && !KEEP_HEADER) {
    closeQuietly(header);
    return { lock: fd, header: undefined };
  }
  return { lock: fd, header };
}

/** A reader's "descriptor" for a folder that is not on this disk: nothing is held, nothing is closed. */
const NOT_ON_DISK = -1;

/**
 * The kernel lock for a reader: shared, on `.vault.lock` if a writer ever made
 * it, and on vault.json as well, which a writer keeps locked all session (so a
 * `.vault.lock` removed or replaced under a writer lets no reader in either).
 */
function readerLock(n: NativeLocks, dir: string): Held | null {
  const lockPath = path.join(dir, LOCK_FILE);
  const fd = lockFile(n, lockPath, O.O_RDONLY, true);
  if (fd === null) return null;
  let header: number | null | undefined;
  try {
    header = lockFile(n, path.join(dir, HEADER_FILE), O.O_RDONLY, true);
  } catch (e) {
    if (fd === undefined) throw e;
    // vault.json odd or unreadable: opening the vault will say so; the lock on .vault.lock is the one that counts.
    header = undefined;
  }
  if (header === null) {
    if (fd !== undefined) closeQuietly(fd);
    return null;
  }
  if (fd !== undefined) return { lock: fd, header };
  if (header === undefined) {
    // The folder is not on this computer's disk at all (the caller reads it through another VaultFs, as the
    // crash simulator's in-memory disk does): there is nothing here for another process to reach, so nothing to lock.
    if (!fs.existsSync(dir)) return { lock: NOT_ON_DISK, header: undefined };
    throw cannotLock(m('errors:lock.noFiles'));
  }
  // A writer may have made .vault.lock meanwhile; if so, that is the lock that counts.
  if (fs.existsSync(lockPath)) {
    closeQuietly(header);
    return readerLock(n, dir);
  }
  return { lock: NOT_ON_DISK, header };
}

/** Releases the vault's process lock (once; later calls do nothing). */
export interface HeldLock {
  (): void;
  /** For a writer, after vault.json was written anew: hold the new file, so a lost `.vault.lock` still leaves the vault held. */
  refresh(): void;
}

/** A live process of this computer holds the vault (its pid when its record names it). */
class Busy {
  constructor(readonly pid?: number) {}
}

/** Pauses between two tries while waiting: short, as a per-call holder lets go within moments; random, so waiters do not try in step. */
const POLL_MS = [1, 4] as const;

/**
 * Where waiting writers say they wait: a shared lock on this byte of
 * `.vault.lock`, held while they wait. A process about to take the vault
 * first looks there, and when others wait it waits with them instead of
 * cutting in front: a process taking the vault call after call would
 * otherwise starve the rest (it tries again at once; they sleep between
 * tries). Only where locks are byte ranges: fs-native-extensions locks the
 * whole file on macOS (flock), where this hint is left out.
 */
const WAITING_AT = LOCK_AT + 1;
const WAITERS_SEEN = process.platform !== 'darwin';

/** True when another process waits for the vault (holds the waiting byte). */
function othersWait(n: NativeLocks, dir: string): boolean {
  const fd = openFile(path.join(dir, LOCK_FILE), O.O_RDWR);
  if (fd === undefined) return false;
  try {
    const free = take(n, fd, false, WAITING_AT);
    if (free) n.unlock(fd, WAITING_AT, 1);
    return !free;
  } finally {
    closeQuietly(fd);
  }
}

/** Says this process waits: a descriptor holding the waiting byte shared (closed when done), or undefined if not now. */
function sayWaiting(n: NativeLocks, dir: string): number | undefined {
  const fd = openFile(path.join(dir, LOCK_FILE), O.O_RDWR);
  if (fd === undefined || take(n, fd, true, WAITING_AT)) return fd;
  // Someone is looking (othersWait) at this instant: say it at the next try.
  closeQuietly(fd);
  return undefined;
}

/**
 * Takes the vault's process lock; IN_USE if a live process (this one
 * included) holds it — after waiting up to `opts.waitMs` for it to let go —
 * or at once if the lock record says the vault is open on another computer.
 */
export async function acquireLock(dir: string, opts: LockOptions = {}): Promise<HeldLock> {
  const n = await locks();
  const waits = (opts.waitMs ?? 0) > 0 && !opts.readOnly;
  const deadline = Date.now() + (opts.waitMs ?? 0);
  let waiting: number | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      let pid: number | undefined;
      // Others already waiting go first: join them (see WAITING_AT).
      if (!(attempt === 0 && waits && WAITERS_SEEN && othersWait(n, dir))) {
        const got = tryAcquire(n, dir, opts);
        if (!(got instanceof Busy)) return got;
        pid = got.pid;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw inUse(pid);
      if (waits && WAITERS_SEEN) waiting ??= sayWaiting(n, dir);
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, POLL_MS[0] + Math.random() * (POLL_MS[1] - POLL_MS[0]))));
    }
  } finally {
    if (waiting !== undefined) closeQuietly(waiting);
  }
}

function tryAcquire(n: NativeLocks, dir: string, opts: LockOptions): HeldLock | Busy {
  const held = opts.readOnly ? readerLock(n, dir) : writerLock(n, dir);
  if (held === null) return new Busy();
  const closeAll = () => {
    closeQuietly(held.lock);
    if (held.header !== undefined) closeQuietly(held.header);
  };
  const file = path.join(dir, '.lock');
  const record = readRecord(file);
  if (record && record.host !== os.hostname()) {
    closeAll();
    throw new VaultError(
      'IN_USE',
      m('errors:lock.openOnHost', { host: shownHost(record.host) }),
    );
  }
  if (record && holderLives(record)) {
    closeAll();
    return new Busy(record.pid);
  }
  // Any other record is stale: its holder is gone (or its pid belongs to another process now).
  if (!opts.readOnly) writeRecord(dir, file);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (!opts.readOnly) removeRecord(file);
    closeAll();
  };
  const refresh = () => {
    if (released || opts.readOnly || !KEEP_HEADER) return;
    if (held.header !== undefined && stillThere(held.header, path.join(dir, HEADER_FILE))) return;
    if (held.header !== undefined) closeQuietly(held.header);
    held.header = headerLock(n, dir) ?? undefined;
  };
  return Object.assign(release, { refresh });
}
