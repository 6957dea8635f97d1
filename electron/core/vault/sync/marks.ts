/**
 * Per-device high-water marks (docs/sync-design.md §5), kept in the state
 * folder as `<vaultId>.devices`: for each device, the highest seq this device
 * has applied from it and a tag of that record. A lower maximum later
 * (without a checkpoint covering it) is a rollback of that device; a
 * different confirmed record at that seq is a fork. Written without waiting
 * for the disk, as v1's mark: it only has to be good enough to notice.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface DeviceMark {
  seq: number;
  tag: string;
}

export class DeviceMarks {
  private readonly file: string;
  private marks = new Map<string, DeviceMark>();
  private pending: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(stateDir: string, vaultId: string) {
    this.file = path.join(stateDir, `${vaultId}.devices`);
  }

  async load(): Promise<void> {
    try {
      const raw = JSON.parse(await fs.readFile(this.file, 'utf8')) as Record<string, DeviceMark>;
      for (const [dev, m] of Object.entries(raw)) if (Number.isSafeInteger(m?.seq) && typeof m.tag === 'string') this.marks.set(dev, { seq: m.seq, tag: m.tag });
    } catch {
      // None yet, or unreadable: rollbacks of other devices are noticed from now on.
    }
  }

  get(dev: string): DeviceMark | undefined {
    return this.marks.get(dev);
  }

  /** Notes that record `tag` at `seq` of `dev` was applied (the mark only rises). */
  note(dev: string, seq: number, tag: string): void {
    const have = this.marks.get(dev);
    if (have && have.seq >= seq) return;
    this.marks.set(dev, { seq, tag });
    this.dirty = true;
  }

  /** Forgets the mark of `dev` (this computer's own, when it gave way to another copy of itself: store2.ts). */
  drop(dev: string): void {
    if (this.marks.delete(dev)) this.dirty = true;
  }

  /** Writes the marks if they changed (best effort, beside and renamed over). */
  flush(): Promise<void> {
    if (!this.dirty) return this.pending;
    this.dirty = false;
    const text = JSON.stringify(Object.fromEntries(this.marks)) + '\n';
    this.pending = this.pending.then(async () => {
      try {
        await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
        const tmp = `${this.file}.${process.pid}.tmp`;
        await fs.writeFile(tmp, text, { mode: 0o600 });
        await fs.rename(tmp, this.file);
      } catch {
        // Best effort: a missing mark only weakens rollback detection.
      }
    });
    return this.pending;
  }
}
