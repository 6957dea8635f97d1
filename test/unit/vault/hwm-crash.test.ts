import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HighWaterMark } from '../../../electron/core/vault/hwm';

let root: string | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  if (root) await fsp.rm(root, { recursive: true, force: true });
  root = undefined;
});

/** From now on, a write to a file under `dir` truncates it and then dies, as a process killed between open(O_TRUNC) and write(2) would. */
function killWritesUnder(dir: string): void {
  const real = fsp.writeFile.bind(fsp);
  vi.spyOn(fsp, 'writeFile').mockImplementation(async (file, data, opts) => {
    if (typeof file === 'string' && file.startsWith(dir)) {
      await real(file, '', opts as never);
      throw Object.assign(new Error('killed'), { code: 'EINTR' });
    }
    return real(file, data as never, opts as never);
  });
}

describe('the device’s high-water mark', () => {
  it('a process killed while writing a new mark leaves the old mark, never a lower one', async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'mnemo-hwm-'));
    const id = 'ab'.repeat(16);
    const hwm = new HighWaterMark(root, id);
    hwm.note(500);
    await hwm.flush();
    expect(await new HighWaterMark(root, id).read()).toBe(500);
    killWritesUnder(root);
    hwm.note(501);
    await hwm.flush();
    vi.restoreAllMocks();
    expect(await new HighWaterMark(root, id).read()).toBeGreaterThanOrEqual(500);
  });
});
