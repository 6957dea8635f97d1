/**
 * `mnemo mcp` and `mnemo memory` find the unlocked app's channel by the id of the vault in the folder. A format-2
 * vault's vault.json is version 2: the id must be read from it all the same, else the CLI never reaches the app and
 * opens the vault itself, which the app holds ("in use by another program").
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { vaultIdIn } from '../../../electron/cli/memory-app';
import { tempVault, type TempVault } from '../vault/helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

it('the vault id is read from a format-2 vault.json (version 2), as from a format-1 one', async () => {
  for (const format2 of [false, true]) {
    t = await tempVault({ format2 });
    await t.vault.memory.writeFile('/memories/a.md', 'a', { mode: 'create', source: 'user' });
    const version = (JSON.parse(await fs.readFile(path.join(t.dir, 'vault.json'), 'utf8')) as { version: number }).version;
    expect(version).toBe(format2 ? 2 : 1);
    expect(await vaultIdIn(t.dir)).toBe(t.vault.vaultId);
    await t.cleanup();
    t = undefined;
  }
});
