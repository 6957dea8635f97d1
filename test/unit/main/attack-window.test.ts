/** A compromised window and a hostile API server against main: what each can and cannot get out of it. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { format2On } from '../../../electron/core/vault/vault2';
import { SecretClipboard, type ClipboardPort } from '../../../electron/main/clipboard';
import { confirmLinkDialog, decideLink } from '../../../electron/main/links';
import { createHandlers, dispatch, type HandlerContext } from '../../../electron/main/handlers';
import type { EventName, EventPayload } from '../../../electron/shared/ipc';
import { apiError, memoryCall, reply, startFakeAnthropic, text, type FakeAnthropic } from '../../fake-anthropic/server';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'amber-kettle-orbit-sonnet-42';
const roots: string[] = [];
const servers: FakeAnthropic[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of roots.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function root(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-attack-'));
  roots.push(dir);
  return dir;
}

type Sent = { event: EventName; payload: unknown };

async function app(extra: Partial<HandlerContext> = {}) {
  const dir = await root();
  const sent: Sent[] = [];
  const copied: string[] = [];
  const a = createHandlers({
    userDataDir: dir,
    stateDir: path.join(dir, 'state'),
    env: {},
    kdf: KDF,
    pickDirectory: async () => undefined,
    emit: <K extends EventName>(event: K, payload: EventPayload<K>) => sent.push({ event, payload }),
    clipboard: { copy: async (s: string) => void copied.push(s), clearNow: async () => undefined } as unknown as HandlerContext['clipboard'],
    ...extra,
  });
  return { ...a, sent, copied, dir };
}

const ok = <T>(r: { ok: boolean; value?: unknown }): T => {
  expect(r).toMatchObject({ ok: true });
  return r.value as T;
};

describe('a hostile API server', () => {
  // A key that does not look like Anthropic's (a gateway's token), echoed back in a 400 error body.
  const KEY = 'gateway-token-Q7f3LmZ9xR2pW8vK4nT6';

  async function echoingServer() {
    const fake = await startFakeAnthropic({ apiKey: KEY });
    servers.push(fake);
    // The server has the key (it was sent to it), so it can quote it back whole.
    const echo = () => apiError(400, 'invalid_request_error', `bad header x-api-key: ${KEY} <b>retry</b>`);
    return { fake, echo };
  }

  it('cannot hand the API key to the window by quoting it in an error (connection test)', async () => {
    const { fake, echo } = await echoingServer();
    fake.script(echo);
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: KEY } });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    const r = ok<{ ok: boolean; message: string }>(await dispatch(a.handlers, 'settingsTestConnection', []));
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/400/);
    expect(r.message).not.toContain(KEY);
    expect(r.message).not.toContain(KEY.slice(0, 16));
    await a.session.close();
  });

  it('cannot hand a stored API key to the window by quoting it in an error (chat reply)', async () => {
    const { fake, echo } = await echoingServer();
    fake.script(echo);
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL } });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'settingsSetApiKey', [{ apiKey: KEY }]));
    const conv = ok<{ id: string }>(await dispatch(a.handlers, 'chatCreate', []));
    ok(await dispatch(a.handlers, 'chatSend', [{ id: conv.id, text: 'hello' }]));
    await expect.poll(() => a.sent.some((s) => JSON.stringify(s.payload).includes('"type":"done"'))).toBe(true);
    const everything = JSON.stringify(a.sent) + JSON.stringify(await dispatch(a.handlers, 'chatGet', [{ id: conv.id }]));
    expect(everything).toMatch(/refused the request \(400\)/);
    expect(everything).not.toContain(KEY.slice(0, 16));
    await a.session.close();
  });
});

describe('a hostile API server naming its own stop reason', () => {
  it('reaches the window only as one of the stop reasons the app knows', async () => {
    const fake = await startFakeAnthropic();
    servers.push(fake);
    const smuggled = `<img src=x onerror=alert(1)> ${fake.apiKey}`;
    fake.script({ ...reply(text('hi')), stop_reason: smuggled as 'end_turn' });
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey } });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    const conv = ok<{ id: string }>(await dispatch(a.handlers, 'chatCreate', []));
    ok(await dispatch(a.handlers, 'chatSend', [{ id: conv.id, text: 'hello' }]));
    await expect.poll(() => a.sent.some((s) => JSON.stringify(s.payload).includes('"type":"done"'))).toBe(true);
    const done = a.sent.map((s) => (s.payload as { event?: { type: string; stopReason?: string } }).event).find((e) => e?.type === 'done');
    expect(done?.stopReason).toBe('unknown');
    expect(JSON.stringify(a.sent)).not.toContain(fake.apiKey);
    await a.session.close();
  });
});

describe('a hostile API server with an error body of the wrong shape', () => {
  it.each([['an object', { html: '<b>x</b>' }], ['a number', 42], ['null', null]])('still ends the turn with an error and done when the message is %s', async (_name, message) => {
    const fake = await startFakeAnthropic();
    servers.push(fake);
    const bad = apiError(400, 'invalid_request_error', message as unknown as string);
    fake.script(bad, bad);
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey } });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    const conv = ok<{ id: string }>(await dispatch(a.handlers, 'chatCreate', []));
    ok(await dispatch(a.handlers, 'chatSend', [{ id: conv.id, text: 'hello' }]));
    await expect.poll(() => a.session.turns.size).toBe(0);
    const events = a.sent.map((s) => (s.payload as { event?: { type: string; message?: string } }).event);
    expect(events.find((e) => e?.type === 'error')?.message).toMatch(/refused the request \(400\)/);
    expect(events.some((e) => e?.type === 'done')).toBe(true);
    const r = ok<{ ok: boolean; message: string }>(await dispatch(a.handlers, 'settingsTestConnection', []));
    expect(r.message).toMatch(/400/);
    await a.session.close();
  });
});

describe('a turn that fails outside its own error handling', () => {
  it('still tells the window it is done, so the window does not wait forever', async () => {
    const fake = await startFakeAnthropic();
    servers.push(fake);
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey } });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    const conv = ok<{ id: string }>(await dispatch(a.handlers, 'chatCreate', []));
    ok(await dispatch(a.handlers, 'chatSend', [{ id: conv.id, text: 'hello' }]));
    // Locked before the turn has read its conversation: the turn cannot start at all.
    ok(await dispatch(a.handlers, 'vaultLock', []));
    await expect.poll(() => a.session.turns.size).toBe(0);
    const events = a.sent.flatMap((s) => (s.event === 'chatEvent' ? [(s.payload as { event: { type: string } }).event.type] : []));
    expect(events).toContain('error');
    expect(events.at(-1)).toBe('done');
    await a.session.close();
  });
});

describe('links a compromised window asks main to open', () => {
  it('refuses an address that puts a trusted name in front of its real host as userinfo', () => {
    for (const href of ['https://console.anthropic.com@evil.example/', 'https://console.anthropic.com:x@evil.example/settings/keys', 'https://console.anthropic.com%2Fsettings%2Fkeys@evil.example/']) {
      expect(decideLink(href)).toEqual({ kind: 'refuse' });
    }
  });

  it('names the real host in the confirmation, so a look-alike name cannot hide it', () => {
    const d = confirmLinkDialog('https://console.anthropic.com.evil.example/settings/keys');
    expect(d.message).toContain('console.anthropic.com.evil.example');
    expect(decideLink('https://xn--nthropic-7ya.com/')).toEqual({ kind: 'confirm', url: 'https://xn--nthropic-7ya.com/' });
    expect(decideLink('https://ánthropic.com/')).toEqual({ kind: 'confirm', url: 'https://xn--nthropic-7ya.com/' });
  });

  it('never opens the trusted page for a look-alike or smuggled address without asking', async () => {
    const asked: string[] = [];
    const opened: string[] = [];
    const a = await app({ links: { confirm: async (u) => (asked.push(u), false), openExternal: async (u) => void opened.push(u) } });
    for (const href of ['https://console.anthropic.com.evil.example/settings/keys', 'https://console.anthropic.com\\@evil.example/settings/keys', 'java\tscript:alert(1)', 'file:///etc/passwd', 'data:text/html,<script>1</script>', 'mnemo://x', 'https://console.anthropic.com/settings/keys?memory=secret']) {
      expect(ok<{ opened: boolean }>(await dispatch(a.handlers, 'openLink', [{ href }])).opened).toBe(false);
    }
    expect(opened).toEqual([]);
    expect(asked.every((u) => !u.includes('\\') && !/\s/.test(u))).toBe(true);
  });
});

describe('the recovery key a compromised window can ask main to copy', () => {
  it('is forgotten some minutes after it was shown, so a page compromised later cannot put it back in the clipboard', async () => {
    let now = 1_000_000;
    const a = await app({ now: () => now });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'clipboardWriteRecoveryKey', []));
    now += 11 * 60_000;
    expect(await dispatch(a.handlers, 'clipboardWriteRecoveryKey', [])).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(a.copied).toHaveLength(1);
    await a.session.close();
  });
});

describe('a new passphrase without the old one', () => {
  it('is set once per recovery-key unlock: a page cannot replace the passphrase the user has just chosen', async () => {
    const a = await app();
    const { recoveryKey } = ok<{ recoveryKey: string }>(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'vaultLock', []));
    ok(await dispatch(a.handlers, 'vaultUnlockWithRecoveryKey', [{ recoveryKey }]));
    ok(await dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'tundra-pylon-ginger-mosaic-83' }]));
    expect(await dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'quartz-lantern-fjord-velvet-17' }])).toMatchObject({ ok: false, error: { code: 'INVALID' } });
    ok(await dispatch(a.handlers, 'vaultLock', []));
    ok(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: 'tundra-pylon-ginger-mosaic-83' }]));
    await a.session.close();
  });

  it('is set by only one of two calls racing each other', async () => {
    const a = await app();
    const { recoveryKey } = ok<{ recoveryKey: string }>(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'vaultLock', []));
    ok(await dispatch(a.handlers, 'vaultUnlockWithRecoveryKey', [{ recoveryKey }]));
    const results = await Promise.all([
      dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'tundra-pylon-ginger-mosaic-83' }]),
      dispatch(a.handlers, 'vaultSetPassphrase', [{ next: 'quartz-lantern-fjord-velvet-17' }]),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    await a.session.close();
  });
});

describe('locking while the keys are rotated', () => {
  it('reports a lock that cut a rotation short as a lock, not as damaged memories, and keeps every memory', async () => {
    const a = await app();
    const first = ok<{ recoveryKey: string }>(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }])).recoveryKey;
    ok(await dispatch(a.handlers, 'memoryWrite', [{ path: '/memories/a.md', text: 'secret', mode: 'create' }]));
    const rotating = dispatch(a.handlers, 'vaultRotateKeys', [{ passphrase: PASS }]);
    // Let the rotation get under way (a few turns of the event loop), then lock, as idle auto-lock or a suspend would.
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    ok(await dispatch(a.handlers, 'vaultLock', []));
    const r = await rotating;
    if (!r.ok) expect(r.error).toMatchObject({ code: 'LOCKED', message: expect.stringMatching(/locked/) });
    // Whichever key is current (the old one if the rotation stopped, else the new one) still opens the vault.
    ok(await dispatch(a.handlers, 'vaultUnlockWithRecoveryKey', [{ recoveryKey: r.ok ? (r.value as { recoveryKey: string }).recoveryKey : first }]));
    ok(await dispatch(a.handlers, 'vaultLock', []));
    ok(await dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }]));
    expect(ok<{ text: string }>(await dispatch(a.handlers, 'memoryRead', [{ path: '/memories/a.md' }])).text).toBe('secret');
    await a.session.close();
  });


  it('leaves the vault locked when the window locks it in the middle of a rotation', async () => {
    const a = await app();
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'memoryWrite', [{ path: '/memories/a.md', text: 'secret', mode: 'create' }]));
    const rotating = dispatch(a.handlers, 'vaultRotateKeys', [{ passphrase: PASS }]);
    ok(await dispatch(a.handlers, 'vaultLock', []));
    await rotating;
    expect(ok<{ unlocked: boolean }>(await dispatch(a.handlers, 'vaultStatus', [])).unlocked).toBe(false);
    expect(await dispatch(a.handlers, 'memoryRead', [{ path: '/memories/a.md' }])).toMatchObject({ ok: false, error: { code: 'LOCKED' } });
    expect(await dispatch(a.handlers, 'clipboardWriteRecoveryKey', [])).toMatchObject({ ok: false });
    await a.session.close();
  });
});

describe('a hostile API server sending odd tool calls', () => {
  it.each([['null', null], ['a string', 'view /memories'], ['an array', ['/memories']]])('ends the turn cleanly when a tool call input is %s', async (_name, input) => {
    const fake = await startFakeAnthropic();
    servers.push(fake);
    fake.script(reply(memoryCall(input as unknown as Record<string, unknown>)), reply(text('done')));
    const a = await app({ env: { ANTHROPIC_BASE_URL: fake.baseURL, ANTHROPIC_API_KEY: fake.apiKey } });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    const conv = ok<{ id: string }>(await dispatch(a.handlers, 'chatCreate', []));
    ok(await dispatch(a.handlers, 'chatSend', [{ id: conv.id, text: 'hello' }]));
    await expect.poll(() => a.sent.some((s) => JSON.stringify(s.payload).includes('"type":"done"'))).toBe(true);
    expect(a.session.turns.size).toBe(0);
    await a.session.close();
  });
});

describe('the recovery key in the clipboard when Mnemo quits', () => {
  /** An OS clipboard that outlives the process, and timers that never fire (the process is gone before a minute passes). */
  function osClipboard() {
    const state = { text: '' };
    const port: ClipboardPort = {
      write: async (t) => void (state.text = t),
      readText: async () => state.text,
      clear: async () => void (state.text = ''),
    };
    return { state, clip: new SecretClipboard(port, 'linux', { setTimeout: () => 0, clearTimeout: () => undefined }) };
  }

  it('is cleared at quit instead of staying there once the clearing timer dies with the process', async () => {
    const { state, clip } = osClipboard();
    const a = await app({ clipboard: clip });
    const { recoveryKey } = ok<{ recoveryKey: string }>(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'clipboardWriteRecoveryKey', []));
    expect(state.text).toBe(recoveryKey);
    await a.session.close();
    expect(state.text).toBe('');
  });

  it('leaves alone what the user copied after the key', async () => {
    const { state, clip } = osClipboard();
    const a = await app({ clipboard: clip });
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'clipboardWriteRecoveryKey', []));
    state.text = 'a shopping list';
    await a.session.close();
    expect(state.text).toBe('a shopping list');
  });
});

describe('unlocks racing each other', () => {
  it('open one session, so locking wipes every key that was derived', async () => {
    const a = await app();
    ok(await dispatch(a.handlers, 'vaultCreate', [{ passphrase: PASS }]));
    ok(await dispatch(a.handlers, 'vaultLock', []));
    // A session is begun once per successful unlock; a second one would be orphaned with its keys, never wiped by lock.
    // (Format 1 begins it in `begin`; format 2 opens its session in `enter2`.)
    const begin = vi.spyOn(Vault.prototype as unknown as Record<'begin' | 'enter2', (...a: unknown[]) => unknown>, format2On({}) ? 'enter2' : 'begin');
    try {
      const results = await Promise.all([dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }]), dispatch(a.handlers, 'vaultUnlock', [{ passphrase: PASS }])]);
      expect(results.every((r) => r.ok)).toBe(true);
      expect(begin).toHaveBeenCalledTimes(1);
    } finally {
      begin.mockRestore();
    }
    await a.session.close();
  });
});
