/**
 * Format 2: another computer applies a record only once a later one of its writer confirms it (sync-design §2.5
 * rule 3: the `ack`, written 50 ms after a burst of writes). A backup is a frozen copy: whatever it holds
 * unconfirmed, no computer restoring it would ever read. So the backup confirms the writes before it copies.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { copyVault } from '../../../electron/core/transfer';
import { Vault } from '../../../electron/core/vault/vault';
import { FLOOR, PASS } from './helpers';

const roots: string[] = [];
afterEach(async () => {
  for (const r of roots.splice(0)) await fs.rm(r, { recursive: true, force: true });
});

it('format 2: a backup made right after a write holds it for another computer that restores it', async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-backup2-'));
  roots.push(root);
  // A long ack delay: the backup comes before the debounced ack, as a backup right after Claude's write does.
  const { vault, recoveryKey } = await Vault.create(path.join(root, 'vault'), PASS, { kdf: FLOOR, stateDir: path.join(root, 'state'), format2: true, ackDelayMs: 3_600_000 });
  await vault.memory.writeFile('/memories/a.md', 'alpha', { mode: 'create', source: 'user' });
  await vault.memory.writeFile('/memories/b.md', 'beta', { mode: 'create', source: 'claude' });
  await copyVault(vault, path.join(root, 'backup'));
  await vault.close();

  const restored = await Vault.open(path.join(root, 'backup'), { stateDir: path.join(root, 'other-computer'), format2: true });
  try {
    await restored.unlockWithRecoveryKey(recoveryKey);
    expect(await restored.memory.readFile('/memories/a.md')).toBe('alpha');
    expect(await restored.memory.readFile('/memories/b.md')).toBe('beta');
  } finally {
    await restored.close();
  }
});
