import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function fresh(env: NodeJS.ProcessEnv) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-keysrc-'));
  dirs.push(dir);
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, pickDirectory: async () => undefined, emit: () => undefined });
  await dispatch(made.handlers, 'vaultCreate', [{ passphrase: 'correct horse battery staple' }]);
  return made;
}

it('settings say the key comes from ANTHROPIC_API_KEY when it does, even with none stored, and never carry the key', async () => {
  const { handlers, session } = await fresh({ ANTHROPIC_API_KEY: 'sk-ant-env-secret-4411' });
  const got = await dispatch(handlers, 'settingsGet', []);
  expect(got).toMatchObject({ ok: true, value: { hasApiKey: false, apiKeySource: 'environment' } });
  const set = await dispatch(handlers, 'settingsSetApiKey', [{ apiKey: 'sk-ant-stored-secret-9' }]);
  expect(set).toEqual({ ok: true, value: { hasApiKey: true, apiKeySource: 'environment' } });
  expect(JSON.stringify([got, set])).not.toMatch(/secret/);
  await session.close();
});

it('settings say no key is set when neither the environment nor the vault has one', async () => {
  const { handlers, session } = await fresh({});
  expect(await dispatch(handlers, 'settingsGet', [])).toMatchObject({ ok: true, value: { hasApiKey: false, apiKeySource: 'none' } });
  await session.close();
});
