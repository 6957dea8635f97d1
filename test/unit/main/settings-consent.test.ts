/**
 * The window may not, on its own, replace the API key or weaken a protection:
 * main decides, with the passphrase or a confirmation it shows itself
 * (DESIGN.md §9b). Played through `dispatch`, the path Electron's ipcMain and
 * the e2e harness use, with the real handlers.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getApiKey, loadSettings } from '../../../electron/core/chat/settings-store';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { CallName } from '../../../electron/shared/ipc';
import type { SettingsPatch } from '../../../electron/shared/settings';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const KEY = 'sk-ant-api03-OwnersKey-0001';
const EVIL_KEY = 'sk-ant-api03-AttackersKey-6666';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Main's handlers over a fresh temp folder (removed after the test), with main's own confirmation dialog `confirmChange` if given. */
async function handlers(confirmChange?: (q: { message: string; detail: string }) => Promise<boolean>) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-consent-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const made = createHandlers({
    userDataDir: dir,
    stateDir: path.join(dir, 'state'),
    env: {},
    kdf: KDF,
    pickDirectory: async () => undefined,
    emit: () => undefined,
    ...(confirmChange === undefined ? {} : { confirmChange }),
  });
  cleanups.push(() => made.session.close());
  return made;
}

/** The app with a vault; `answer` is what main's own confirmation dialog says (absent: there is no dialog). */
async function app(answer?: boolean) {
  const asked: Array<{ message: string; detail: string }> = [];
  const made = await handlers(answer === undefined ? undefined : async (q) => (asked.push(q), answer));
  expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }])).ok).toBe(true);
  const call = (name: CallName, ...args: unknown[]) => dispatch(made.handlers, name, args);
  const vault = () => made.session.unlocked();
  return { ...made, call, vault, asked };
}

const NEEDS = { ok: false, error: { code: 'NEEDS_CONSENT', message: expect.stringMatching(/passphrase/) } };

/** Each weakening the window might ask for, from the defaults (auto-lock 10, approval on, guard block, 20 versions). */
const WEAKENINGS: Array<[string, SettingsPatch]> = [
  ['auto-lock off', { autoLockMinutes: 0 }],
  ['auto-lock later', { autoLockMinutes: 60 }],
  ['approval mode off', { approvalMode: false }],
  ['guard block → redact', { guardMode: 'redact' }],
  ['guard block → allow', { guardMode: 'allow' }],
  ['fewer versions kept', { historyDepth: 1 }],
  ['more tool rounds per message', { maxToolRounds: 500 }],
  ['other apps from no access to viewing', { mcpAccess: 'read-only' }],
  ['other apps from no access to changing', { mcpAccess: 'read-write' }],
];

describe('a settings change that weakens a protection', () => {
  for (const [name, patch] of WEAKENINGS) {
    it(`(${name}) is refused without the passphrase or main's confirmation, and nothing changes`, async () => {
      const a = await app();
      expect((await a.call('settingsSet', { approvalMode: true })).ok).toBe(true);
      const before = await loadSettings(a.vault());
      const depth = a.vault().historyDepth();
      expect(await a.call('settingsSet', { ...patch, maxTokens: 5000 })).toMatchObject(NEEDS);
      expect(await loadSettings(a.vault())).toEqual(before);
      expect(a.vault().historyDepth()).toBe(depth);
    });
  }

  it('is refused when main’s own dialog is cancelled, and made when the user confirms there', async () => {
    const denied = await app(false);
    expect(await denied.call('settingsSet', { autoLockMinutes: 0 })).toMatchObject(NEEDS);
    expect(denied.asked).toHaveLength(1);
    expect(denied.asked[0]!.detail).toMatch(/auto-lock off/i);
    expect((await loadSettings(denied.vault())).autoLockMinutes).toBe(10);

    const allowed = await app(true);
    expect(await allowed.call('settingsSet', { autoLockMinutes: 0, guardMode: 'allow' })).toMatchObject({ ok: true, value: { autoLockMinutes: 0, guardMode: 'allow' } });
    expect(allowed.asked).toHaveLength(1);
    expect(allowed.asked[0]!.detail).toMatch(/auto-lock off[\s\S]*secret/i);
  });

  it('is made with the right passphrase, without asking; a wrong one changes nothing and says so', async () => {
    const a = await app(false);
    expect(await a.call('settingsSet', { historyDepth: 2, passphrase: 'not it at all' })).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(a.vault().historyDepth()).toBe(20);
    expect(await a.call('settingsSet', { historyDepth: 2, passphrase: PASS })).toMatchObject({ ok: true, value: { historyDepth: 2 } });
    expect(a.vault().historyDepth()).toBe(2);
    expect(a.asked).toEqual([]);
  });

  it('is not asked for when a change only strengthens or keeps a protection', async () => {
    const a = await app(false);
    for (const patch of [{ autoLockMinutes: 5 }, { approvalMode: true }, { guardMode: 'block' as const }, { historyDepth: 50 }, { maxToolRounds: 5 }, { autoLockMinutes: 5, historyDepth: 50, maxTokens: 3000, thinking: true }]) {
      expect((await a.call('settingsSet', patch)).ok, JSON.stringify(patch)).toBe(true);
    }
    // From off, any auto-lock is stronger; from redact, block is stronger.
    expect((await a.call('settingsSet', { autoLockMinutes: 0, passphrase: PASS })).ok).toBe(true);
    expect((await a.call('settingsSet', { autoLockMinutes: 1440 })).ok).toBe(true);
    expect(a.asked).toEqual([]);
  });
});

describe('access for other apps (MCP)', () => {
  it('is off by default; widening it needs consent, narrowing it does not', async () => {
    const a = await app(false);
    expect((await loadSettings(a.vault())).mcpAccess).toBe('off');
    expect((await a.call('settingsSet', { mcpAccess: 'read-only', passphrase: PASS })).ok).toBe(true);
    expect(await a.call('settingsSet', { mcpAccess: 'read-write' })).toMatchObject(NEEDS);
    expect(a.asked.map((q) => q.detail)).toEqual([expect.stringMatching(/view and change your memories/)]);
    expect((await loadSettings(a.vault())).mcpAccess).toBe('read-only');
    expect((await a.call('settingsSet', { mcpAccess: 'read-write', passphrase: PASS })).ok).toBe(true);
    for (const narrower of ['read-only', 'off'] as const) expect((await a.call('settingsSet', { mcpAccess: narrower })).ok, narrower).toBe(true);
    expect((await loadSettings(a.vault())).mcpAccess).toBe('off');
  });
});

describe('the API key', () => {
  it('is set without the passphrase when none is stored', async () => {
    const a = await app(false);
    expect(await a.call('settingsSetApiKey', { apiKey: KEY })).toMatchObject({ ok: true, value: { hasApiKey: true } });
    expect(a.asked).toEqual([]);
  });

  it('is not replaced or removed by the window without the passphrase or main’s confirmation', async () => {
    const a = await app(false);
    await a.call('settingsSetApiKey', { apiKey: KEY });
    expect(await a.call('settingsSetApiKey', { apiKey: EVIL_KEY })).toMatchObject(NEEDS);
    expect(await a.call('settingsSetApiKey', { apiKey: null })).toMatchObject(NEEDS);
    expect(await a.call('settingsSetApiKey', { apiKey: EVIL_KEY, passphrase: 'wrong guess' })).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(await getApiKey(a.vault())).toBe(KEY);
    // Cancelled once, main's dialog stays away for a while (consent.ts): the removal is refused without one.
    expect(a.asked.map((q) => q.detail)).toEqual([expect.stringMatching(/replace/i)]);
  });

  it('is replaced with the passphrase, or after the user confirms in main’s dialog', async () => {
    const a = await app(true);
    await a.call('settingsSetApiKey', { apiKey: KEY });
    expect((await a.call('settingsSetApiKey', { apiKey: 'sk-ant-api03-NewKey-2' })).ok).toBe(true);
    expect(await getApiKey(a.vault())).toBe('sk-ant-api03-NewKey-2');
    const b = await app(false);
    await b.call('settingsSetApiKey', { apiKey: KEY });
    expect((await b.call('settingsSetApiKey', { apiKey: null, passphrase: PASS })).ok).toBe(true);
    expect(await getApiKey(b.vault())).toBeUndefined();
  });
});

describe('main’s own dialog', () => {
  it('is shown once at a time: more requests while it is open are refused without another dialog', async () => {
    let answer: (yes: boolean) => void = () => undefined;
    let shown = 0;
    const made = await handlers(() => (shown++, new Promise<boolean>((r) => (answer = r))));
    await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }]);
    const first = dispatch(made.handlers, 'settingsSet', [{ autoLockMinutes: 0 }]);
    await new Promise((r) => setTimeout(r, 20));
    const more = await Promise.all(Array.from({ length: 5 }, () => dispatch(made.handlers, 'settingsSet', [{ guardMode: 'allow' }])));
    expect(more.every((r) => !r.ok && r.error.code === 'NEEDS_CONSENT')).toBe(true);
    expect(shown).toBe(1);
    answer(false);
    expect(await first).toMatchObject(NEEDS);
    expect((await loadSettings(made.session.unlocked())).guardMode).toBe('block');
  });
});
