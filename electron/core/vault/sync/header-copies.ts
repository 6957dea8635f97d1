/**
 * vault.json when several computers write one vault (docs/sync-design.md §1
 * and §7). A passphrase changed on two computers at once leaves two headers,
 * and the sync engine keeps one as vault.json and the other as a copy it
 * names its own way (`vault.sync-conflict-….json`, `vault (… conflicted
 * copy …).json`, `vault 2.json`, `vault-HOST.json`). No name is trusted: a
 * copy is any small `.json` file in the vault's root that parses as this
 * vault's header. Every computer ranks them the same way (counter, then the
 * hash of the bytes), tries them in that order at unlock, and once it holds
 * the key keeps only the best one that is authentic: it writes those exact
 * bytes as vault.json (so two computers doing it at once write the same file)
 * and deletes the other authentic copies, which still hold passphrases the
 * user replaced. A copy that does not authenticate is not ours: it is left
 * where it is and `verify` names it.
 */
import path from 'node:path';
import { hash, toHex } from '../crypto';
import { readIfExists, writeFileDurable } from '../files';
import type { VaultFs } from '../fsio';
import { headerAuthentic, parseHeader, type Header } from '../header';
import type { HeaderSeen } from '../hwm';
import { VaultError } from '../types';
import { m } from '../../i18n/message';

export const HEADER_FILE = 'vault.json';
/** A header is about 1 KiB; a file far larger is not one, and is not read. */
const MAX_COPY_BYTES = 64 * 1024;
/** At most this many copies of this vault's header are kept from one listing. */
const MAX_COPIES = 64;
/**
 * At most this many files are read looking for them (a folder of tens of thousands of `.json` files is not read
 * whole). Only a file that is a header of this vault counts towards MAX_COPIES: junk named like a copy cannot push a
 * real copy out (it could when the first 64 names were taken before reading them).
 */
const MAX_READ = 4096;
/** At most this many copies are tried at unlock, each one key derivation. */
export const MAX_TRIED = 4;

export interface HeaderCopy {
  /** The file's name in the vault's root. */
  name: string;
  header: Header;
  bytes: Uint8Array;
  /** Hash of the bytes, hex: the tie-break between copies of one counter. */
  digest: string;
}

/** Best first: the higher counter, then the higher version, then the higher hash (any order every computer computes alike would do). */
export function byRank(a: HeaderCopy, b: HeaderCopy): number {
  const ca = a.header.counter ?? 0;
  const cb = b.header.counter ?? 0;
  if (ca !== cb) return cb - ca;
  // The upgrade to format 2 keeps its counter: at one counter the upgraded header is the later (its slots are the same).
  if (a.header.version !== b.header.version) return b.header.version - a.header.version;
  return a.digest < b.digest ? 1 : a.digest > b.digest ? -1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * True for a file name that may hold a copy of vault.json (any `.json`, but not a temp file). Never vault.json in
 * another case: on a file system that ignores case (macOS, Windows) that is vault.json itself, listed as it was
 * created, and deleting it as a copy would delete the header; no sync engine names a copy so.
 */
const mayBeCopy = (n: string) => n.toLowerCase().endsWith('.json') && !n.startsWith('.tmp-') && n.toLowerCase() !== HEADER_FILE;

async function readCopy(dir: string, fsx: VaultFs, name: string, vaultId: string, maxVersion: number): Promise<HeaderCopy | undefined> {
  try {
    const file = path.join(dir, name);
    const st = await fsx.stat(file);
    if (!st.isFile || st.size > MAX_COPY_BYTES) return undefined;
    const bytes = await readIfExists(fsx, file);
    if (!bytes || bytes.length > MAX_COPY_BYTES) return undefined;
    const header = parseHeader(bytes, maxVersion);
    return header.vaultId === vaultId ? { name, header, bytes, digest: toHex(hash(bytes)) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * vault.json (always first read, whatever its rank) and every other copy of
 * the header of vault `vaultId` in `dir`, best first. vault.json itself is
 * read by the caller (its errors are the vault's); `main` is it.
 */
export async function headerCopies(dir: string, fsx: VaultFs, main: HeaderCopy, maxVersion: number): Promise<HeaderCopy[]> {
  // Names no sync engine would give a copy (they all keep "vault") are read last: a folder of other `.json` files
  // must not push the copy holding a newer passphrase out of the MAX_COPIES read.
  const late = (n: string) => (n.toLowerCase().startsWith('vault') ? 0 : 1);
  const names = (await fsx.readdir(dir))
    .filter(mayBeCopy)
    .sort((a, b) => late(a) - late(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_READ);
  const copies = [main];
  for (const n of names) {
    const c = await readCopy(dir, fsx, n, main.header.vaultId, maxVersion);
    if (c) copies.push(c);
    if (copies.length > MAX_COPIES) break;
  }
  return copies.sort(byRank);
}

/** vault.json's bytes as a copy. */
export const mainCopy = (header: Header, bytes: Uint8Array): HeaderCopy => ({ name: HEADER_FILE, header, bytes, digest: toHex(hash(bytes)) });

/** What the copies say, in one string: a change to any of them (a copy arriving or going) changes it. */
export const copiesMark = (copies: readonly HeaderCopy[]) => copies.map((c) => `${c.name}\u0000${c.digest}`).join('\u0001');

/** The copies authenticated by `vmk` (ours, best first), and those that are not. */
export function sortOut(copies: readonly HeaderCopy[], vmk: Uint8Array): { ours: HeaderCopy[]; foreign: HeaderCopy[] } {
  const ours: HeaderCopy[] = [];
  const foreign: HeaderCopy[] = [];
  for (const c of copies) (c.header.mac !== undefined && headerAuthentic(c.header, vmk) ? ours : foreign).push(c);
  // vault.json from before MACs cannot be checked here: the vault's mark refuses it once it had one (vault2.ts
  // HEADER_MAC_MARK). Beside an authentic copy the vault had one: its MAC was stripped, and it is not ours (kept as
  // ours it would win on its unauthenticated counter, and the authentic copy be deleted before the mark refused it).
  const unmarked = foreign.find((c) => c.header.mac === undefined && c.name === HEADER_FILE);
  if (unmarked && !ours.length) ours.push(...foreign.splice(foreign.indexOf(unmarked), 1));
  return { ours, foreign };
}

/**
 * Keeps `winner` alone: its bytes as vault.json when that file holds
 * others, and every other authentic copy deleted (`ours`, found by
 * `sortOut`). Returns true when vault.json was written.
 */
export async function keepOnly(dir: string, fsx: VaultFs, winner: HeaderCopy, ours: readonly HeaderCopy[]): Promise<boolean> {
  const main = ours.find((c) => c.name === HEADER_FILE);
  let wrote = false;
  if (winner.name !== HEADER_FILE && (!main || main.digest !== winner.digest)) {
    await writeFileDurable(fsx, path.join(dir, HEADER_FILE), winner.bytes);
    wrote = true;
  }
  let removed = false;
  for (const c of ours) {
    if (c.name === HEADER_FILE) continue;
    await fsx.unlink(path.join(dir, c.name));
    removed = true;
  }
  if (removed) await fsx.syncDir(dir);
  return wrote;
}

/**
 * A wrong passphrase for a header (not older than the one this device last saw) whose passphrase is not the one the
 * user last gave here: set on another computer since, or at the same time as here and won (hwm.ts `typed`).
 */
export const newPassphrase = (h: Header, seen: HeaderSeen | undefined): boolean => {
  const known = [seen?.typed ?? seen?.salt, seen?.typedBefore].filter((x) => x !== undefined);
  if (!seen || !known.length || (h.counter ?? 0) < seen.counter) return false;
  const pass = h.slots.find((s) => s.type === 'passphrase');
  return pass?.type === 'passphrase' && !known.includes(pass.kdf.salt);
};

/** The passphrase typed opens an older header: it was replaced on another computer. */
export const passphraseChangedElsewhere = (): VaultError => new VaultError('BAD_PASSPHRASE', m('errors:unlock.changedElsewhere'));

/** A recovery key that opens only the header of a rotation another one made at once replaced (sync/rivals.ts). */
export const keysChangedElsewhere = (): VaultError => new VaultError('BAD_PASSPHRASE', m('errors:unlock.keysChangedElsewhere'));
