/**
 * Size limits of the memory tool. They keep one runaway turn from filling the
 * disk or the context window: files and the vault stop growing at a bound, and
 * a view returns at most a screenful that Claude pages through with view_range.
 */
import { formatFileSize } from './format';

export interface MemoryLimits {
  /** Largest memory file, in UTF-8 bytes. */
  maxFileBytes: number;
  /** Largest total of all memory files, in UTF-8 bytes. */
  maxVaultBytes: number;
  /** Most characters one `view` result may hold; longer files are paged with view_range. */
  maxViewChars: number;
}

export const DEFAULT_MEMORY_LIMITS: Readonly<MemoryLimits> = Object.freeze({
  maxFileBytes: 1024 * 1024,
  maxVaultBytes: 100 * 1024 * 1024,
  maxViewChars: 64 * 1024,
});

/** The defaults with the given overrides; every value must be a positive whole number. */
export function resolveLimits(overrides: Partial<MemoryLimits> = {}): MemoryLimits {
  const limits = { ...DEFAULT_MEMORY_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`Memory limit ${name} must be a positive whole number.`);
  }
  return limits;
}

/** Which limit a write would break, with the sizes: for the window's and the CLI's own wording of it. */
export type SizeExcess = { kind: 'file'; size: number; limit: number } | { kind: 'total'; size: number; limit: number };

/**
 * Which limit a write of `newBytes` to a file (replacing `oldBytes`) would break, or undefined when it
 * fits. `totalBytes` is the vault's current total.
 */
export function sizeExcess(newBytes: number, oldBytes: number, totalBytes: number, limits: Pick<MemoryLimits, 'maxFileBytes' | 'maxVaultBytes'>): SizeExcess | undefined {
  if (newBytes > limits.maxFileBytes) return { kind: 'file', size: newBytes, limit: limits.maxFileBytes };
  const nextTotal = totalBytes - oldBytes + newBytes;
  if (newBytes > oldBytes && nextTotal > limits.maxVaultBytes) return { kind: 'total', size: nextTotal, limit: limits.maxVaultBytes };
  return undefined;
}

/**
 * Why a write of `newBytes` to `path` (replacing `oldBytes`) would break a
 * limit, or undefined when it fits, told to Claude. `totalBytes` is the vault's current total.
 */
export function sizeProblem(path: string, newBytes: number, oldBytes: number, totalBytes: number, limits: Pick<MemoryLimits, 'maxFileBytes' | 'maxVaultBytes'>): string | undefined {
  const excess = sizeExcess(newBytes, oldBytes, totalBytes, limits);
  if (excess?.kind === 'file') {
    return (
      `No change was made: ${path} would be ${formatFileSize(excess.size)}, over the ${formatFileSize(excess.limit)} limit for one memory file. ` +
      'Keep memory files short: summarise, or split the content over several files.'
    );
  }
  if (excess?.kind === 'total') {
    return (
      `No change was made: the memory directory would hold ${formatFileSize(excess.size)}, over its ${formatFileSize(excess.limit)} limit. ` +
      'Delete or shorten memories that are no longer needed, then try again.'
    );
  }
  return undefined;
}
