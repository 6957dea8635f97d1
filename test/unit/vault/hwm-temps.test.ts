/** Temp files a killed process left in the device state folder are tidied at the next unlock; a live writer's are not. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempVault } from './helpers';

describe('the high-water mark’s temp files', () => {
  it('leftovers of killed processes are removed at the next unlock; fresh ones of a live process and other files stay', async () => {
    const t = await tempVault();
    try {
      const id = t.vault.vaultId;
      await t.vault.close();
      const dead = [`${id}.hwm.999999999.tmp`, `${id}.header.999999998.tmp`];
      const liveFresh = `${id}.hwm.${process.ppid}.tmp`;
      const liveOld = `${id}.header.${process.ppid}.tmp`;
      const other = ['someone-else.hwm.999999997.tmp', 'notes.txt'];
      for (const f of [...dead, liveFresh, liveOld, ...other]) await fs.writeFile(path.join(t.stateDir, f), '7\n');
      const old = new Date(Date.now() - 10 * 60 * 1000);
      await fs.utimes(path.join(t.stateDir, liveOld), old, old);
      await t.reopen();
      const left = await fs.readdir(t.stateDir);
      for (const f of [...dead, liveOld]) expect(left, f).not.toContain(f);
      for (const f of [liveFresh, ...other]) expect(left, f).toContain(f);
    } finally {
      await t.cleanup();
    }
  });
});
