/**
 * A VaultApi that forwards to a real vault but can be told to fail the way a
 * real vault fails (a damaged blob, a locked vault, a storage error), so the
 * memory tool's answers to those failures can be tested without corrupting
 * files by hand.
 */
import { VaultError, type MemoryOps, type VaultApi, type VaultErrorCode } from '../../../electron/core/vault/types';

export interface Faults {
  /** Paths whose readFile fails with DAMAGED. */
  damaged: Set<string>;
  /** When set, every exclusive() call fails with this code before running. */
  refuse?: VaultErrorCode;
  /** When set, writes fail with this error (message may hold text the tool must not pass on). */
  writeError?: Error;
}

/** `vault` with faults injected into the ops it hands to `exclusive`. */
export function faultyVault(vault: VaultApi, faults: Faults): VaultApi {
  const wrap = (ops: MemoryOps): MemoryOps => ({
    ...ops,
    stat: (p) => ops.stat(p),
    list: (d, depth) => ops.list(d, depth),
    totalSize: () => ops.totalSize(),
    readFile: async (p) => {
      if (faults.damaged.has(p)) throw new VaultError('DAMAGED', `${p} is damaged or missing in the vault files; restore it from history or a backup.`, p);
      return ops.readFile(p);
    },
    writeFile: async (p, text, opts) => {
      if (faults.writeError) throw faults.writeError;
      return ops.writeFile(p, text, opts);
    },
    remove: (p, s) => ops.remove(p, s),
    rename: (a, b, s) => ops.rename(a, b, s),
    mkdir: (p, s) => ops.mkdir(p, s),
  });
  return new Proxy(vault, {
    get(target, prop, receiver) {
      if (prop === 'exclusive') {
        return <T>(fn: (ops: MemoryOps) => Promise<T>): Promise<T> => {
          if (faults.refuse) return Promise.reject(new VaultError(faults.refuse, `The vault refused (${faults.refuse}) at /home/someone/.config/Mnemo/vault.`));
          return target.exclusive((ops) => fn(wrap(ops)));
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
