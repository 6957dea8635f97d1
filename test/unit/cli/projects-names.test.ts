/**
 * `mnemo projects` with names typed another way than they were stored: a
 * decomposed accent (as some terminals send it) names the same project.
 */
import fs from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { initVault, mnemo } from './helpers';

let v: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  v = await initVault();
});
afterAll(async () => {
  await fs.rm(v.root, { recursive: true, force: true });
});

const run = (args: string[]) => mnemo([...args, '--vault', v.vault], { env: v.env });

it('restore finds a deleted project by its name typed with a decomposed accent, as delete does', async () => {
  expect((await run(['projects', 'create', 'Caf\u00e9'])).code).toBe(0);
  expect((await run(['projects', 'delete', 'Cafe\u0301', '--yes'])).code).toBe(0);
  expect(await run(['projects', 'restore', ' Cafe\u0301 '])).toMatchObject({ code: 0, stderr: expect.stringMatching(/Restored the project "Caf\u00e9"/) });
  expect((await run(['projects'])).stdout).toMatch(/\nCaf\u00e9\t[0-9a-f]{16}\n$/);
});
