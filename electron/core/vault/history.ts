/**
 * Kept versions of a memory: reading an old one back. Listing them, and who
 * wrote each, is answered by the State (state.ts); the trash is in trash.ts.
 */
import { wipe } from './crypto';
import type { Unlocked } from './ops';
import { VaultError, type MemoryOps } from './types';
import { m } from '../i18n/message';

/** The text of version `version` of memory `p`: its current one or one its history keeps (NOT_FOUND otherwise). */
export async function readVersion(u: Unlocked, ops: MemoryOps, p: string, version: number): Promise<string> {
  const current = u.state.files.get(p);
  if (current?.v === version) return ops.readFile(p);
  const entry = u.state.hist.get(p)?.find((h) => h.v === version);
  if (!entry) throw new VaultError('NOT_FOUND', m('errors:history.noVersion', { version, path: p }), p);
  const bytes = await u.store.readBlob('blobs', entry.b, `${p} (version ${version})`);
  try {
    return new TextDecoder().decode(bytes);
  } finally {
    wipe(bytes);
  }
}
