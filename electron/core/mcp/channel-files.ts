/**
 * The channel's files on disk, handled so that only this user can use them:
 * the state folder (0700), the token file (0600, written whole through a
 * temporary file and a rename) and the socket (0600; a stale one left by a
 * killed app is replaced only once nothing answers on it). Errors are
 * sentences without host paths.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { m, type LocalMessage } from '../i18n/message';

/** Why the channel could not start or be used; the message is for the user and names no host path. */
export class ChannelError extends Error {
  /** `message` in English; `local` the same by catalog key, for the window's language. */
  constructor(readonly local: LocalMessage) {
    super(local.text);
    this.name = 'ChannelError';
  }
}

const TOKEN = /^[0-9a-f]{64}$/;
const posix = (platform: NodeJS.Platform) => platform !== 'win32';
const myUid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Makes the state folder, or checks the one there: a real folder (not a link)
 * of this user, closed to everyone else (0700), in folders no other user can
 * change. On BSD-like systems a socket's own mode is not checked on connect,
 * so the folder is what keeps others out.
 */
export async function prepareStateDir(dir: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (!posix(platform)) return;
  await checkAncestors(dir);
  const st = await fs.lstat(dir);
  if (!st.isDirectory()) throw new ChannelError(m('errors:channel.stateNotFolder'));
  if (myUid() !== undefined && st.uid !== myUid()) throw new ChannelError(m('errors:channel.stateOtherUser'));
  if ((st.mode & 0o077) !== 0) await fs.chmod(dir, 0o700);
}

/**
 * Every folder above the state folder, as named and as resolved, must be one
 * whose entries only this user (or root) can rename: owned by one of them and
 * not writable by others unless sticky (like /tmp). Otherwise another user
 * could put a folder of their own in the state folder's place between the
 * app's check and its socket and token, and a client would hand them the
 * token. Group write is allowed: many systems give each user a group of their
 * own and a umask of 002.
 */
async function checkAncestors(dir: string): Promise<void> {
  const uid = myUid();
  if (uid === undefined) return;
  const seen = new Set<string>();
  for (const start of [path.resolve(dir), await fs.realpath(dir)]) {
    for (let at = path.dirname(start); !seen.has(at); at = path.dirname(at)) {
      seen.add(at);
      const st = await fs.stat(at);
      const othersMayRename = (st.uid !== uid && st.uid !== 0) || ((st.mode & 0o002) !== 0 && (st.mode & 0o1000) === 0);
      if (othersMayRename) throw new ChannelError(m('errors:channel.ancestorWritable'));
    }
  }
}

/** Writes a new random token (32 bytes, hex) to `file`, mode 0600, whole or not at all; returns it. */
export async function writeToken(file: string): Promise<string> {
  const token = randomBytes(32).toString('hex');
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(token);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  return token;
}

/**
 * The token in `file`, or undefined unless it is a regular file (not a link,
 * FIFO or device: opened without following links and without blocking, then
 * checked on the open descriptor) owned by this user and readable by nobody
 * else, holding exactly one token.
 */
export async function readToken(file: string, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const flags = constants.O_RDONLY | (posix(platform) ? constants.O_NOFOLLOW | constants.O_NONBLOCK : 0);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, flags);
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > 256) return undefined;
    if (posix(platform) && ((myUid() !== undefined && st.uid !== myUid()) || (st.mode & 0o077) !== 0)) return undefined;
    const buf = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8').trim();
    return TOKEN.test(text) ? text : undefined;
  } finally {
    await handle.close();
  }
}

/** Removes the token file if it still holds `token` (never another app's). */
export async function removeToken(file: string, token: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  if ((await readToken(file, platform)) === token) await fs.rm(file, { force: true });
}

/** Sets the umask and answers the old one; undefined where there is none to set (Windows, a worker thread). */
function posixUmask(mask: number): number | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    return process.umask(mask);
  } catch {
    return undefined;
  }
}

function listen(server: net.Server, at: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (e: Error) => {
      server.off('listening', done);
      reject(e);
    };
    const done = () => {
      server.off('error', fail);
      resolve();
    };
    server.once('error', fail);
    server.once('listening', done);
    // The socket is made 0600 as it is bound (synchronously, in listen), whatever the process's
    // umask: made with the default mode and narrowed after, it would be open to others for a moment.
    const umask = posixUmask(0o177);
    try {
      server.listen(at);
    } finally {
      if (umask !== undefined) process.umask(umask);
    }
  });
}

/** True if something accepts a connection at `at` within a second (a live server: never take its place). */
function answers(at: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(at);
    const end = (alive: boolean) => {
      probe.destroy();
      resolve(alive);
    };
    probe.setTimeout(1000, () => end(true));
    probe.once('connect', () => end(true));
    probe.once('error', () => end(false));
  });
}

const code = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * Listens on the channel's socket. A socket file left by a killed app is
 * removed only after a connection to it fails; one a live process answers on,
 * or anything that is not a socket, is left alone and the start refused.
 * The socket is then made 0600.
 */
export async function listenOn(server: net.Server, at: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  try {
    try {
      await listen(server, at);
    } catch (e) {
      if (code(e) !== 'EADDRINUSE' || !posix(platform)) throw e;
      if (await answers(at)) throw new ChannelError(m('errors:channel.alreadyServed'));
      const st = await fs.lstat(at).catch(() => undefined);
      if (st && !st.isSocket()) throw new ChannelError(m('errors:channel.somethingElse'));
      await fs.rm(at, { force: true });
      await listen(server, at);
    }
    if (posix(platform)) await fs.chmod(at, 0o600);
  } catch (e) {
    if (e instanceof ChannelError) throw e;
    if (code(e) === 'ENAMETOOLONG' || code(e) === 'EINVAL') throw new ChannelError(m('errors:channel.pathTooLong'));
    throw new ChannelError(m('errors:channel.failedCode', { code: code(e) ?? 'unknown error' }));
  }
}

/** Removes the socket file at `at` if one is there (and nothing else). */
export async function removeSocket(at: string): Promise<void> {
  const st = await fs.lstat(at).catch(() => undefined);
  if (st?.isSocket()) await fs.rm(at, { force: true });
}
