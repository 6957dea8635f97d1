/** A VaultFs for the scale tests (scale2-*.test.ts) that counts what the vault reads. */
import { nodeFs, type VaultFs } from '../../../electron/core/vault/fsio';

/** The real disk, counting the files the vault opens or reads whole. */
export function readCounting(): { fs: VaultFs; reads: { n: number } } {
  const reads = { n: 0 };
  return {
    reads,
    fs: {
      ...nodeFs,
      async readFile(f) {
        reads.n++;
        return nodeFs.readFile(f);
      },
      async open(f, mode) {
        if (mode === 'read') reads.n++;
        return nodeFs.open(f, mode);
      },
    },
  };
}
