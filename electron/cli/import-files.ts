/**
 * Reading the folder `mnemo import` is given, and nothing outside it — even
 * if its files or folders are swapped for symlinks while the import runs.
 * Each file is opened with O_NOFOLLOW and checked on that descriptor (a
 * regular file, within the size limit); every folder on its way must still be
 * the folder that was listed (same device and inode, not a link); on Linux the
 * kernel's own path of the descriptor must lie inside the folder. At most the
 * limit (plus one byte, to notice a file that grew) is read.
 */
import { constants as C } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** A folder as listed: its path and identity. */
interface DirId {
  abs: string;
  dev: number;
  ino: number;
}

/** A regular file found below the import folder, with the folders that lead to it. */
export interface ListedFile {
  rel: string;
  abs: string;
  dirs: DirId[];
}

const OPEN_FLAGS = C.O_RDONLY | (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0);

/** Thrown when the folder changed under the import in a way that could lead outside it. */
export class ImportChanged extends Error {}

async function dirId(abs: string): Promise<DirId> {
  const st = await fs.lstat(abs);
  if (!st.isDirectory()) throw new ImportChanged('a folder was replaced while it was being read');
  return { abs, dev: st.dev, ino: st.ino };
}

/** The regular files below `root` in name order; links and special files are skipped, never followed. */
export async function listFiles(root: string): Promise<ListedFile[]> {
  const top = await fs.realpath(root);
  return walk(top, '', [await dirId(top)]);
}

async function walk(top: string, rel: string, dirs: DirId[]): Promise<ListedFile[]> {
  const here = dirs[dirs.length - 1]!;
  const entries = await fs.readdir(here.abs, { withFileTypes: true });
  // Listed the folder that was checked, not one swapped in meanwhile.
  await stillSame(dirs);
  const out: ListedFile[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const childRel = rel ? `${rel}/${e.name}` : e.name;
    const abs = path.join(top, childRel);
    if (e.isDirectory()) out.push(...(await walk(top, childRel, [...dirs, await dirId(abs)])));
    else if (e.isFile()) out.push({ rel: childRel, abs, dirs });
  }
  return out;
}

async function stillSame(dirs: DirId[]): Promise<void> {
  for (const d of dirs) {
    const now = await dirId(d.abs);
    if (now.dev !== d.dev || now.ino !== d.ino) throw new ImportChanged('a folder was replaced while it was being read');
  }
}

/** On Linux, the kernel's path of an open descriptor: it must lie inside the import folder. */
async function insideOnLinux(fd: number, top: string): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  try {
    const real = await fs.readlink(`/proc/self/fd/${fd}`);
    return real.startsWith(top + path.sep);
  } catch {
    // No /proc: the folder identity checks above decide alone.
    return true;
  }
}

/**
 * The bytes of a listed file, or why it is refused: `too big` (with its size),
 * or `changed` (no longer a regular file of the folder: a link, a special file,
 * a folder swapped on its way). Never reads more than `limit + 1` bytes.
 */
export async function readListedFile(file: ListedFile, top: string, limit: number): Promise<{ bytes: Uint8Array } | { tooBig: number } | { changed: string }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file.abs, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { changed: code === 'ELOOP' ? 'it became a link while the import ran' : 'it could not be opened (moved or removed while the import ran?)' };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { changed: 'it is no longer a regular file' };
    try {
      await stillSame(file.dirs);
    } catch {
      return { changed: 'a folder on its way was replaced while the import ran' };
    }
    if (!(await insideOnLinux(handle.fd, top))) return { changed: 'it now lies outside the folder being imported' };
    if (st.size > limit) return { tooBig: st.size };
    const buf = new Uint8Array(limit + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > limit) return { tooBig: n };
    return { bytes: buf.subarray(0, n) };
  } finally {
    await handle.close();
  }
}

/** The real path `listFiles` walks for `root`. */
export const importRoot = (root: string): Promise<string> => fs.realpath(root);
