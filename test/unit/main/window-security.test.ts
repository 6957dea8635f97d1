/**
 * The window is untrusted: whatever it sends, main decides where data goes and
 * who may mint a credential. Each test plays the page through `dispatch`, the
 * same path Electron's ipcMain and the e2e harness use.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, DEFAULT_BASE_URL } from '../../../electron/core/chat/client';
import { loadSettings } from '../../../electron/core/chat/settings-store';
import { Vault } from '../../../electron/core/vault/vault';
import { CLEAR_AFTER_MS, SecretClipboard, type ClipboardMarker, type ClipboardPort } from '../../../electron/main/clipboard';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { confirmLinkDialog, decideLink } from '../../../electron/main/links';
import { readStatic } from '../../../electron/main/static-files';
import { defaultSettings } from '../../../electron/shared/settings';
import { startFakeAnthropic } from '../../fake-anthropic/server';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tmp(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

type Extra = Partial<Parameters<typeof createHandlers>[0]>;
async function app(extra: Extra = {}) {
  const dir = await tmp('mnemo-winsec-');
  const events: Array<{ event: string; payload: unknown }> = [];
  const picks: string[] = [];
  const made = createHandlers({
    userDataDir: dir,
    stateDir: path.join(dir, 'state'),
    env: {},
    kdf: KDF,
    pickDirectory: async (purpose) => (picks.push(purpose), undefined),
    emit: (event, payload) => events.push({ event, payload }),
    ...extra,
  });
  cleanups.push(() => made.session.close());
  const created = await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }]);
  if (!created.ok) throw new Error('create failed');
  const recoveryKey = (created.value as { recoveryKey: string }).recoveryKey;
  return { ...made, dir, events, picks, recoveryKey, call: (name: Parameters<typeof dispatch>[1], ...args: unknown[]) => dispatch(made.handlers, name, args) };
}

/** A server that records every request it gets: where a hostile value would send data. */
async function attacker() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hits.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('the API endpoint comes only from the environment', () => {
  it('a base URL sent by the window never redirects requests carrying the API key', async () => {
    const fake = await startFakeAnthropic();
    cleanups.push(() => fake.close());
    const evil = await attacker();
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL } });
    await a.call('settingsSetApiKey', { apiKey: fake.apiKey });
    await a.call('settingsSet', { baseURL: evil.url });
    await a.call('settingsTestConnection');
    expect(evil.hits).toEqual([]);
    expect(fake.requests.length).toBeGreaterThan(0);
  });

  it('without ANTHROPIC_BASE_URL, a base URL sent by the window still goes nowhere: the client talks to the API itself', async () => {
    const evil = await attacker();
    const a = await app({ env: {} });
    await a.call('settingsSetApiKey', { apiKey: 'sk-ant-api03-secret-value-123' });
    await a.call('settingsSet', { baseURL: evil.url });
    const tc = await createClient(a.session.unlocked(), { env: {}, maxRetries: 0 });
    expect(tc?.client.baseURL).toBe(DEFAULT_BASE_URL);
    expect(evil.hits).toEqual([]);
  });

  it('never shows the window a base URL', async () => {
    const a = await app();
    const got = await a.call('settingsGet');
    expect(got.ok && Object.keys(got.value as object)).not.toContain('baseURL');
  });

  it('still loads a vault whose stored settings carry a base URL, ignoring it', async () => {
    const a = await app();
    const vault = a.session.unlocked();
    await vault.internal.putJSON('settings', { ...defaultSettings(), baseURL: 'http://127.0.0.1:9/', maxTokens: 9000 });
    const s = await loadSettings(vault);
    expect(s.maxTokens).toBe(9000);
    expect(Object.keys(s)).not.toContain('baseURL');
    expect(await a.call('settingsGet')).toMatchObject({ ok: true, value: { maxTokens: 9000 } });
  });
});

describe('credentials and plaintext need the passphrase, checked in main', () => {
  it('refuses to mint a recovery key without the passphrase, and the old key keeps working', async () => {
    const a = await app();
    expect((await a.call('vaultNewRecoveryKey')).ok).toBe(false);
    expect(await a.call('vaultNewRecoveryKey', { passphrase: 'wrong horse' })).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    await a.session.close();
    const v = await Vault.open(path.join(a.dir, 'vault'), { stateDir: path.join(a.dir, 'state') });
    await v.unlockWithRecoveryKey(a.recoveryKey);
    await v.close();
  });

  it('mints a recovery key for the right passphrase, replacing the old one', async () => {
    const a = await app();
    const r = await a.call('vaultNewRecoveryKey', { passphrase: PASS });
    expect(r.ok).toBe(true);
    await a.session.close();
    const v = await Vault.open(path.join(a.dir, 'vault'), { stateDir: path.join(a.dir, 'state') });
    await expect(v.unlockWithRecoveryKey(a.recoveryKey)).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
    await v.unlockWithRecoveryKey((r as { value: { recoveryKey: string } }).value.recoveryKey);
    await v.close();
  });

  it('refuses a plaintext export without the right passphrase, before any folder is asked for', async () => {
    const a = await app();
    expect((await a.call('vaultExportPlaintext')).ok).toBe(false);
    expect(await a.call('vaultExportPlaintext', { passphrase: 'wrong horse' })).toMatchObject({ ok: false, error: { code: 'BAD_PASSPHRASE' } });
    expect(a.picks).toEqual([]);
    expect(await a.call('vaultExportPlaintext', { passphrase: PASS })).toEqual({ ok: true, value: { saved: false, count: 0 } });
    expect(a.picks).toEqual(['export']);
  });
});

describe('settings patches change only the fields they carry', () => {
  const changed: Record<string, unknown> = {
    model: 'claude-opus-4-1',
    maxTokens: 8000,
    memoryGuidance: 'Only remember my name.',
    approvalMode: true,
    guardMode: 'allow',
    autoLockMinutes: 3,
    historyDepth: 7,
    thinking: true,
    contextManagement: { enabled: false, triggerInputTokens: 50_000, keepToolUses: 1, clearAtLeastTokens: 100 },
    compaction: true,
    maxToolRounds: 12,
    mcpAccess: 'read-write',
    mcpNewClientsReadOnly: true,
    autoTitle: false,
  };
  it('covers every setting', () => {
    expect(Object.keys(changed).sort()).toEqual(Object.keys(defaultSettings()).sort());
  });
  it.each(Object.keys(changed))('setting only %s leaves every other setting as it was', async (field) => {
    const a = await app();
    // Start from non-default values everywhere, so a reset to a default shows.
    const start = { ...changed, model: 'claude-haiku-4-5', maxTokens: 5000, memoryGuidance: 'x', approvalMode: false, guardMode: 'redact', autoLockMinutes: 30, historyDepth: 9, thinking: false, compaction: false, maxToolRounds: 40, mcpAccess: 'read-only', mcpNewClientsReadOnly: false, autoTitle: true, contextManagement: { enabled: true, triggerInputTokens: 60_000, keepToolUses: 2, clearAtLeastTokens: 200 } };
    // Some of these weaken a protection, which main allows with the passphrase (settings-consent.test.ts).
    expect((await a.call('settingsSet', { ...start, passphrase: PASS })).ok).toBe(true);
    const r = await a.call('settingsSet', { [field]: changed[field], passphrase: PASS });
    expect(r.ok).toBe(true);
    const after = await loadSettings(a.session.unlocked());
    expect(after).toEqual({ ...start, [field]: changed[field] });
  });
  it('a nested patch keeps the nested fields it does not name', async () => {
    const a = await app();
    await a.call('settingsSet', { contextManagement: { keepToolUses: 5 } });
    expect((await loadSettings(a.session.unlocked())).contextManagement).toEqual({ ...defaultSettings().contextManagement, keepToolUses: 5 });
  });
});

describe('the recovery key is copied by main, concealed, and cleared after a minute', () => {
  function fakes(platform: NodeJS.Platform = 'darwin') {
    const state = { text: '', markers: [] as ClipboardMarker[], clears: 0 };
    const port: ClipboardPort = {
      write: async (text, markers) => void Object.assign(state, { text, markers }),
      readText: async () => state.text,
      clear: async () => void Object.assign(state, { text: '', markers: [], clears: state.clears + 1 }),
    };
    const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
    const clip = new SecretClipboard(port, platform, {
      setTimeout: (fn, ms) => (timers.push({ fn, ms, cancelled: false }), timers.length - 1),
      clearTimeout: (h) => void (timers[h as number]!.cancelled = true),
    });
    const fire = async () => {
      for (const t of timers.filter((x) => !x.cancelled)) {
        t.cancelled = true;
        t.fn();
      }
      await vi.waitFor(() => undefined);
      await new Promise((r) => setImmediate(r));
    };
    return { state, clip, timers, fire };
  }

  it('copies only the key main handed out, marked concealed on macOS', async () => {
    const f = fakes('darwin');
    const a = await app({ clipboard: f.clip });
    expect(await a.call('clipboardWriteRecoveryKey')).toEqual({ ok: true, value: { copied: true } });
    expect(f.state.text).toBe(a.recoveryKey);
    expect(f.state.markers.map((m) => m.format)).toEqual(['org.nspasteboard.ConcealedType']);
    expect(f.timers.at(-1)?.ms).toBe(CLEAR_AFTER_MS);
  });

  it('marks it excluded from monitoring, history and cloud sync on Windows', async () => {
    const f = fakes('win32');
    await f.clip.copy('KEY');
    expect(f.state.markers.map((m) => m.format)).toEqual(['ExcludeClipboardContentFromMonitorProcessing', 'CanIncludeInClipboardHistory', 'CanUploadToCloudClipboard']);
  });

  it('clears the clipboard when the minute is up if it still holds the key', async () => {
    const f = fakes();
    await f.clip.copy('KEY-1');
    await f.fire();
    expect(f.state.text).toBe('');
    expect(f.state.clears).toBe(1);
  });

  it('leaves alone what the user copied since', async () => {
    const f = fakes();
    await f.clip.copy('KEY-1');
    f.state.text = 'something else';
    await f.fire();
    expect(f.state.text).toBe('something else');
    expect(f.state.clears).toBe(0);
  });

  it('has nothing to copy once the vault is locked', async () => {
    const f = fakes();
    const a = await app({ clipboard: f.clip });
    await a.call('vaultLock');
    expect((await a.call('clipboardWriteRecoveryKey')).ok).toBe(false);
    expect(f.state.text).toBe('');
  });
});

describe('links are opened by main', () => {
  it('opens the app’s own pages directly, asks about any other http(s) link, never opens other schemes', () => {
    expect(decideLink('https://console.anthropic.com/settings/keys')).toEqual({ kind: 'open', url: 'https://console.anthropic.com/settings/keys' });
    expect(decideLink('https://github.com/evil/x?m=secret')).toEqual({ kind: 'confirm', url: 'https://github.com/evil/x?m=secret' });
    expect(decideLink('HTTPS://EVIL.example/a b')).toEqual({ kind: 'confirm', url: 'https://evil.example/a%20b' });
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'mailto:a@b.c', 'smb://host/share', 'not a url', '']) expect(decideLink(bad), bad).toEqual({ kind: 'refuse' });
  });

  it('shows the full URL with Cancel as the default, and opens only on Open', async () => {
    const asked: string[] = [];
    const opened: string[] = [];
    let answer = false;
    const a = await app({ links: { confirm: async (u) => (asked.push(u), answer), openExternal: async (u) => void opened.push(u) } });
    const long = `https://github.com/x/y?memory=${'a'.repeat(3000)}`;
    expect(await a.call('openLink', { href: long })).toEqual({ ok: true, value: { opened: false } });
    expect(asked).toEqual([long]);
    answer = true;
    expect(await a.call('openLink', { href: long })).toEqual({ ok: true, value: { opened: true } });
    expect(await a.call('openLink', { href: 'file:///etc/passwd' })).toEqual({ ok: true, value: { opened: false } });
    expect(opened).toEqual([long]);
    const d = confirmLinkDialog(long);
    expect(d.detail).toContain(long);
    expect(d.buttons[d.defaultId]).toBe('Cancel');
    expect(d.buttons[d.cancelId]).toBe('Cancel');
  });
});

describe('events are parsed before they reach the window', () => {
  it('drops an invalid payload and strips unknown fields', async () => {
    const a = await app();
    a.events.length = 0;
    const emit = a.session.ctx.emit as (event: string, payload: unknown) => void;
    emit('chatEvent', { turnId: 't', conversationId: 'c', event: { type: 'text', delta: 42 } });
    emit('vaultLocked', { reason: 'user', apiKey: 'sk-secret' });
    expect(a.events).toEqual([{ event: 'vaultLocked', payload: { reason: 'user' } }]);
  });
});

describe('serving the renderer through symlinks', () => {
  it('does not follow a symlink out of the renderer folder', async () => {
    const dir = await tmp('mnemo-static-link-');
    await fs.mkdir(path.join(dir, 'root'));
    await fs.writeFile(path.join(dir, 'root/index.html'), '<p>app</p>');
    await fs.writeFile(path.join(dir, 'secret.txt'), 'secret');
    await fs.symlink(path.join(dir, 'secret.txt'), path.join(dir, 'root/leak.txt'));
    await fs.symlink(dir, path.join(dir, 'root/up'));
    const root = path.join(dir, 'root');
    expect(await readStatic(root, '/leak.txt')).toBeUndefined();
    expect(await readStatic(root, '/up/secret.txt')).toBeUndefined();
    expect((await readStatic(root, '/index.html'))?.body.toString()).toBe('<p>app</p>');
  });
});
