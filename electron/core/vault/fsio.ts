/**
 * The one door between the vault and the file system. Every byte the vault
 * stores or reads, every rename, delete and directory sync goes through a
 * VaultFs, so tests can swap in a disk model that crashes after any call and
 * keeps only what a power cut would keep (test/unit/vault/sim-fs.ts).
 */
import { constants as C } from 'node:fs';
import fs from 'node:fs/promises';

/**
 * How a file is opened. `read`: read only. `journal`: an existing file for
 * reading and writing, each write durable when it returns where the platform
 * allows (see `VaultFile.dsync`). `journal-new`: the same, created, failing if
 * it exists. `new`: created for writing, failing if it exists; durable only
 * after `sync`.
 */
export type OpenMode = 'read' | 'journal' | 'journal-new' | 'new';

export interface VaultFile {
  /** True when every write on this handle is on disk when it returns (O_DSYNC). */
  readonly dsync: boolean;
  read(buf: Uint8Array, pos: number): Promise<number>;
  write(buf: Uint8Array, pos: number): Promise<number>;
  truncate(len: number): Promise<void>;
  sync(): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

export interface FileStat {
  size: number;
  mtimeMs: number;
  isDirectory: boolean;
  /** A regular file (not a folder, pipe, socket or device). */
  isFile: boolean;
}

/** The file-system calls the vault makes. Errors carry node's `code` (ENOENT, EEXIST, ...). */
export interface VaultFs {
  open(file: string, mode: OpenMode): Promise<VaultFile>;
  readFile(file: string): Promise<Uint8Array>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; a missing one is not an error. */
  unlink(file: string): Promise<void>;
  /** Removes an empty directory; a missing one is not an error. */
  rmdir(dir: string): Promise<void>;
  mkdir(dir: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  stat(file: string): Promise<FileStat>;
  /** Makes the directory's entries (creates, renames, deletes inside it) durable. */
  syncDir(dir: string): Promise<void>;
}

// O_DSYNC where the platform has it (not Windows), else an explicit fdatasync after each append.
const DSYNC = typeof C.O_DSYNC === 'number' && process.platform !== 'win32';
// Reads never wait on a FIFO's writer (which would hang the vault's process); see regularOnly.
const READ = C.O_RDONLY | (C.O_NONBLOCK ?? 0);
const FLAGS: Record<OpenMode, number | string> = {
  read: READ,
  journal: C.O_RDWR | (DSYNC ? C.O_DSYNC : 0),
  'journal-new': C.O_RDWR | C.O_CREAT | C.O_EXCL | (DSYNC ? C.O_DSYNC : 0),
  new: 'wx',
};

/**
 * Refuses anything but a regular file behind a vault file's name: whoever can
 * write the (often synced) vault folder could put a FIFO there, or a link to an
 * endless device, and reading it would hang or exhaust the process.
 */
async function regularOnly(fh: fs.FileHandle): Promise<void> {
  if ((await fh.stat()).isFile()) return;
  await fh.close();
  throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
}

/** The real file system. */
export const nodeFs: VaultFs = {
  async open(file, mode) {
    const fh = await fs.open(file, FLAGS[mode], 0o600);
    await regularOnly(fh);
    return {
      dsync: DSYNC && (mode === 'journal' || mode === 'journal-new'),
      read: async (buf, pos) => (await fh.read(buf, 0, buf.length, pos)).bytesRead,
      write: async (buf, pos) => (await fh.write(buf, 0, buf.length, pos)).bytesWritten,
      truncate: (len) => fh.truncate(len),
      sync: () => fh.sync(),
      datasync: () => fh.datasync(),
      close: () => fh.close(),
    };
  },
  async readFile(file) {
    const fh = await fs.open(file, READ);
    await regularOnly(fh);
    try {
      return new Uint8Array(await fh.readFile());
    } finally {
      await fh.close();
    }
  },
  rename: (from, to) => fs.rename(from, to),
  unlink: (file) => fs.rm(file, { force: true }),
  rmdir: (dir) => fs.rmdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e))),
  mkdir: async (dir) => {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  },
  readdir: (dir) => fs.readdir(dir),
  stat: async (file) => {
    const st = await fs.stat(file);
    return { size: st.size, mtimeMs: st.mtimeMs, isDirectory: st.isDirectory(), isFile: st.isFile() };
  },
  async syncDir(dir) {
    const fh = await fs.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  },
};
