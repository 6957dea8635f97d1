/**
 * This device's high-water mark of each vault's generation, kept outside the
 * vault (a restored or synced older copy of the vault cannot carry it back).
 * Written after each change without waiting for the disk: it only has to be
 * good enough to notice a rollback, and never delays an acknowledged write.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export class HighWaterMark {
  private readonly file: string;
  private pending: Promise<void> = Promise.resolve();
  private wanted = 0;
  private written = 0;

  constructor(stateDir: string, vaultId: string) {
    this.file = path.join(stateDir, `${vaultId}.hwm`);
  }

  async read(): Promise<number> {
    try {
      const n = Number.parseInt(await fs.readFile(this.file, 'utf8'), 10);
      this.written = Number.isFinite(n) ? n : 0;
    } catch {
      this.written = 0;
    }
    return this.written;
  }

  /** Records `gen` (coalescing bursts into one write). */
  note(gen: number): void {
    this.wanted = Math.max(this.wanted, gen);
    this.pending = this.pending.then(async () => {
      if (this.wanted === this.written) return;
      const value = this.wanted;
      try {
        await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
        await fs.writeFile(this.file, `${value}\n`, { mode: 0o600 });
        this.written = value;
      } catch {
        // Best effort: a missing mark only weakens rollback detection.
      }
    });
  }

  /** Sets the mark to exactly `gen` (after the user has been told about a rollback). */
  reset(gen: number): void {
    this.written = -1;
    this.wanted = gen;
    this.note(gen);
  }

  flush(): Promise<void> {
    return this.pending;
  }
}
