import os from 'node:os';
import { expect, test } from '@playwright/test';
import { CALLS } from '../../electron/shared/ipc';
import { memoryCall, reply, startFakeAnthropic, text } from '../fake-anthropic/server';
import { createVault, freshApp, lock, openMemories, PASSPHRASE, shot, typeInEditor, unlock } from './helpers';

const API_KEY = 'sk-ant-api03-Qx7TestOnlyKeyValue-NeverShown-0042';

test('the renderer never receives a key, the API key, the passphrase or a host path', async () => {
  const fake = await startFakeAnthropic({ apiKey: API_KEY });
  const app = await freshApp({ anthropicBaseURL: fake.baseURL });
  try {
    const { page, ipc, userDataDir } = app;
    const recoveryKey = await createVault(page);

    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByLabel('Anthropic API key').fill(API_KEY);
    await page.getByRole('button', { name: 'Save key' }).click();
    await expect(page.getByText('API key:')).toContainText('saved, encrypted in the vault');
    await expect(page.getByLabel('Anthropic API key')).toHaveValue('');
    await shot(page, '40-settings');

    // A chat turn in which Claude writes a memory: its events cross the boundary too.
    fake.script(reply(memoryCall({ command: 'create', path: '/memories/chat.md', file_text: 'from the chat' })), reply(text('Saved.')));
    await page.getByRole('tab', { name: 'Chat' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('Remember this.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Saved.');
    expect(fake.requests.length).toBe(2);

    await openMemories(page);
    await page.getByRole('button', { name: 'New memory' }).click();
    await page.getByLabel('Path of the new memory').fill('/memories/a.md');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await typeInEditor(page, 'hello');
    await page.keyboard.press('ControlOrMeta+S');
    await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);
    await app.session.unlocked().memory.writeFile('/memories/a.md', 'from claude', { mode: 'update', source: 'claude' });
    await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('from claude');
    await page.getByRole('searchbox', { name: 'Search memories' }).fill('claude');
    await page.getByRole('searchbox', { name: 'Search memories' }).press('Enter');
    await lock(page);
    await page.getByLabel('Passphrase', { exact: true }).fill('a wrong passphrase here');
    await page.getByRole('button', { name: 'Unlock', exact: true }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    await unlock(page);

    const toRenderer = ipc.filter((r) => r.direction !== 'call');
    expect(toRenderer.length).toBeGreaterThan(10);
    expect(toRenderer.some((r) => r.channel === 'event:chat')).toBe(true);
    const forbidden = [PASSPHRASE, API_KEY, API_KEY.slice(10, 30), userDataDir, os.tmpdir() + '/', os.homedir(), process.cwd()];
    for (const record of toRenderer) {
      const text = JSON.stringify(record.payload);
      for (const f of forbidden) expect(text, `${record.channel} leaked ${f.slice(0, 12)}…`).not.toContain(f);
      // No raw key material in any encoding: 32-byte keys as hex or base64.
      expect(text, record.channel).not.toMatch(/[0-9a-f]{64}|[A-Za-z0-9+/]{43}=/);
    }
    // The recovery key goes to the renderer exactly once: in the answer to creating the vault.
    const withRecovery = toRenderer.filter((r) => JSON.stringify(r.payload).includes(recoveryKey));
    expect(withRecovery.map((r) => r.channel)).toEqual([CALLS.vaultCreate.channel]);

    // The page keeps no secret either once it has been submitted.
    const values = await page.evaluate(() => document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea')].map((i) => (i as HTMLInputElement).value).join('\n'));
    for (const f of [PASSPHRASE, API_KEY, recoveryKey]) expect(values).not.toContain(f);
  } finally {
    await app.cleanup();
    await fake.close();
  }
});
