/** A full disk (ENOSPC) or a full quota (EDQUOT) is said as what it is, with what to do, to the user and to Claude. */
import { describe, expect, it } from 'vitest';
import { toToolError } from '../../../electron/core/memory/errors';
import { io } from '../../../electron/core/vault/files';
import { VaultError } from '../../../electron/core/vault/types';

const osError = (code: string) => Object.assign(new Error(`${code}: no space left on device, write '/home/someone/.config/Mnemo/vault/segments/x'`), { code });

describe('a full disk in the vault’s error mapping', () => {
  for (const code of ['ENOSPC', 'EDQUOT']) {
    it(`${code} becomes DISK_FULL, saying the disk is full and to free space, with no OS text or path`, async () => {
      const err = await io('errors:io.action.saveChange', () => Promise.reject(osError(code))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VaultError);
      expect((err as VaultError).code).toBe('DISK_FULL');
      expect((err as VaultError).message).toMatch(/disk .*full/i);
      expect((err as VaultError).message).toMatch(/free (up )?(some )?space/i);
      expect((err as VaultError).message).not.toMatch(/ENOSPC|EDQUOT|\/home/);
    });
  }

  it('Claude is told the disk is full, not that the vault could not be read or written', () => {
    const e = toToolError(new VaultError('DISK_FULL', 'x'), { command: 'create', path: '/memories/a.md' });
    expect(e.message).toMatch(/disk .*full/i);
    expect(e.message).not.toMatch(/could not be read or written/);
  });
});
