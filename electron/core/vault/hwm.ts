/**
 * What this device remembers of each vault, kept outside the vault (a restored
 * or synced older copy of the vault cannot carry it back):
 * - the high-water mark of its generation, written after each change without
 *   waiting for the disk: it only has to be good enough to notice a rollback,
 *   and never delays an acknowledged write;
 * - a sticky rollback alarm, set when a rollback is seen and cleared only when
 *   the user accepts the older copy;
 * - the header last seen (counter, MAC, KDF settings), so a header changed
 *   behind this device's back is refused before any slow key derivation.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { hash, toHex, utf8 } from './crypto';
import { writeFileDurable } from './files';
import { nodeFs, type VaultFs } from './fsio';
import { serializeHeader, type Header } from './header';

/** The parts of vault.json this device remembers from its last unlock. */
export interface HeaderSeen {
  counter: number;
  mac: string;
  /** Hash of the whole vault.json, so any edit at the same counter (a salt, a wrap) is caught. */
  digest: string;
  opslimit: number;
  memlimit: number;
  /** The passphrase slot's KDF salt: a new one means a new passphrase (absent in records written before format 2). */
  salt?: string;
  /** The passphrase salt this computer's user last unlocked with or set here: another means it was changed elsewhere. */
  typed?: string;
  /** While a passphrase change made here is being written: the salt before it (either passphrase is the user's). */
  typedBefore?: string;
}

/** What to remember of a header: its counter, MAC and passphrase KDF cost (undefined for a header without a MAC). */
export function seenOf(h: Header): HeaderSeen | undefined {
  const pass = h.slots.find((s) => s.type === 'passphrase');
  if (h.counter === undefined || h.mac === undefined || pass?.type !== 'passphrase') return undefined;
  return { counter: h.counter, mac: h.mac, digest: toHex(hash(serializeHeader(h))), opslimit: pass.kdf.opslimit, memlimit: pass.kdf.memlimit, salt: pass.kdf.salt };
}

/**
 * How `h` compares with the header this device last saw: 'modified' when it
 * differs at the same counter (a KDF cost raised, a slot removed or edited) or
 * lost its MAC; 'older' for a lower counter (a restored backup, or an old
 * vault.json put back: its MAC is checked once the key is unwrapped, and it is
 * then reported as a rollback); 'ok' otherwise (a newer counter is a change made
 * on another device, also MAC-checked after unwrapping).
 *
 * With several computers (`multi`, format 2) a header at the same counter may
 * be another computer's passphrase change made at the same time as this one's,
 * and a lower KDF cost one calibrated on a slower computer: both are 'ok'
 * here, and the MAC decides once the key is unwrapped (docs/sync-design.md §7).
 */
export function compareSeen(h: Header, seen: HeaderSeen | undefined, multi = false): 'ok' | 'older' | 'modified' {
  if (!seen) return 'ok';
  const now = seenOf(h);
  if (!now) return 'modified';
  if (now.counter < seen.counter) return 'older';
  if (now.counter > seen.counter || multi) return 'ok';
  const same = now.digest === seen.digest && now.mac === seen.mac && now.opslimit === seen.opslimit && now.memlimit === seen.memlimit;
  return same ? 'ok' : 'modified';
}

async function writeSmall(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text, { mode: 0o600 });
  await fs.rename(tmp, file);
}

/** A temp file older than this was left by a process that died mid-write (a live write takes milliseconds). */
const STALE_TEMP_MS = 60_000;

/** True when no process `pid` exists here (ESRCH); a process we may not signal still exists. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes this vault's temp files (`<vaultId>.<kind>.<pid>.tmp`, see
 * writeSmall) that a killed process left in the state folder: those whose
 * process is gone, and any older than a minute (a reused pid must not keep one
 * forever). A live writer's fresh temp is left alone.
 */
async function removeStaleTemps(stateDir: string, vaultId: string): Promise<void> {
  const id = vaultId.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const pattern = new RegExp(`^${id}\\.[a-z-]+\\.(\\d+)\\.tmp$`);
  for (const name of await fs.readdir(stateDir).catch(() => [] as string[])) {
    const m = pattern.exec(name);
    if (!m) continue;
    const file = path.join(stateDir, name);
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st?.isFile()) continue;
    if (Number(m[1]) === process.pid) continue;
    if (gone(Number(m[1])) || Date.now() - st.mtimeMs > STALE_TEMP_MS) await fs.rm(file, { force: true }).catch(() => undefined);
  }
}

export class HighWaterMark {
  private tidied = false;
  private readonly file: string;
  private readonly alarmFile: string;
  private readonly headerFile: string;
  private pending: Promise<void> = Promise.resolve();
  private wanted = 0;
  private written = 0;

  /** `fsx` carries the rollback alarm, the one file here that must survive a power cut. */
  constructor(
    private readonly stateDir: string,
    private readonly vaultId: string,
    private readonly fsx: VaultFs = nodeFs,
  ) {
    this.file = path.join(stateDir, `${vaultId}.hwm`);
    this.alarmFile = path.join(stateDir, `${vaultId}.rolled-back`);
    this.headerFile = path.join(stateDir, `${vaultId}.header`);
  }

  /** True once a rollback was seen and not yet accepted. */
  async alarm(): Promise<boolean> {
    return this.fsx.stat(this.alarmFile).then(
      () => true,
      () => false,
    );
  }

  /**
   * Raises or clears the sticky rollback alarm durably: written beside, synced,
   * renamed into place and its folder synced, so a power cut right after a
   * rollback was reported cannot silently lower the alarm.
   */
  async setAlarm(on: boolean): Promise<void> {
    const dir = path.dirname(this.alarmFile);
    // Already as wanted: a raised alarm is met at every unlock until accepted, and need not be synced again each time.
    if (on === (await this.alarm())) return;
    if (on) {
      // The folder may be new too: its entry in its parent must be on disk as well.
      await this.fsx.mkdir(dir);
      await this.fsx.syncDir(path.dirname(dir));
      await writeFileDurable(this.fsx, this.alarmFile, utf8('rolled back\n'));
    } else {
      await this.fsx.unlink(this.alarmFile);
      await this.fsx.syncDir(dir);
    }
  }

  /**
   * Whether the vault at generation `gen` is to be reported as rolled back: it
   * is below the mark now, or was at an earlier unlock and was not accepted.
   * Raises the sticky alarm when first seen; never lowers the mark.
   */
  async rolledBack(gen: number, olderHeader = false): Promise<boolean> {
    // The file is the mark, not what this process saw before: another process may have lowered it since (a
    // rollback accepted there), and raising it back to a generation this process saw earlier would raise a
    // false alarm at the next unlock.
    await this.pending;
    this.wanted = 0;
    const mark = await this.read();
    // If the alarm cannot be stored, the mark (never lowered) still reports a lower generation next time.
    if (gen < mark || olderHeader) await this.setAlarm(true).catch(() => undefined);
    this.note(gen);
    return gen < mark || olderHeader || (await this.alarm());
  }

  /** The user accepts the vault as it is: the mark becomes `gen`, its header is remembered and the alarm is cleared. */
  async accept(gen: number, header: HeaderSeen | undefined): Promise<void> {
    await this.reset(gen);
    if (header) await this.noteHeader(header);
    await this.setAlarm(false);
  }

  /** The header this device last unlocked, if any. */
  async headerSeen(): Promise<HeaderSeen | undefined> {
    try {
      const r = JSON.parse(await fs.readFile(this.headerFile, 'utf8')) as Partial<HeaderSeen>;
      const ok = ['counter', 'opslimit', 'memlimit'].every((k) => Number.isInteger(r[k as keyof HeaderSeen])) && typeof r.mac === 'string' && typeof r.digest === 'string' && [r.salt, r.typed, r.typedBefore].every((x) => x === undefined || typeof x === 'string');
      return ok ? (r as HeaderSeen) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Remembers the header just authenticated or written. */
  async noteHeader(seen: HeaderSeen | undefined): Promise<void> {
    if (!seen) return;
    try {
      await writeSmall(this.headerFile, JSON.stringify(seen) + '\n');
    } catch {
      // Best effort: without it this device checks the header only after unlocking.
    }
  }

  async read(): Promise<number> {
    if (!this.tidied) {
      this.tidied = true;
      await removeStaleTemps(this.stateDir, this.vaultId);
    }
    try {
      const n = Number.parseInt(await fs.readFile(this.file, 'utf8'), 10);
      this.written = Number.isFinite(n) ? n : 0;
    } catch {
      this.written = 0;
    }
    // The mark only ever rises (until reset): a lower generation must not overwrite it.
    this.wanted = Math.max(this.wanted, this.written);
    return this.written;
  }

  /** Records `gen` (coalescing bursts into one write). */
  note(gen: number): void {
    this.wanted = Math.max(this.wanted, gen);
    this.pending = this.pending.then(async () => {
      if (this.wanted === this.written) return;
      const value = this.wanted;
      try {
        // Beside and renamed over, never truncated in place: a process killed mid-write
        // would leave an empty mark, read as 0, and an old copy would no longer be noticed.
        await writeSmall(this.file, `${value}\n`);
        this.written = value;
      } catch {
        // Best effort: a missing mark only weakens rollback detection.
      }
    });
  }

  /** Sets the mark to exactly `gen` (only when the user accepts a rollback). */
  async reset(gen: number): Promise<void> {
    await this.pending;
    this.written = -1;
    this.wanted = gen;
    this.note(gen);
    await this.pending;
  }

  flush(): Promise<void> {
    return this.pending;
  }
}
