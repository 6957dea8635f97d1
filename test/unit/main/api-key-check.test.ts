/**
 * "Connect to Claude" tests the key before saving it: a key the API refuses
 * and an API that cannot be reached each fail with their own code and message,
 * nothing is stored, and the key is never quoted back.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { getApiKey } from '../../../electron/core/chat/settings-store';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import { startFakeAnthropic } from '../../fake-anthropic/server';

const PASS = 'correct horse battery staple';
const GOOD = 'sk-ant-api03-GoodKey-0123456789';
const BAD = 'sk-ant-api03-TypoKey-9876543210';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function app(baseURL: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-keycheck-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const made = createHandlers({ userDataDir: dir, stateDir: path.join(dir, 'state'), env: { ANTHROPIC_BASE_URL: baseURL }, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, pickDirectory: async () => undefined, emit: () => undefined });
  cleanups.push(() => made.session.close());
  await dispatch(made.handlers, 'vaultCreate', [{ passphrase: PASS }]);
  return { call: (args: Record<string, unknown>) => dispatch(made.handlers, 'settingsSetApiKey', [args]), stored: () => getApiKey(made.session.unlocked()) };
}

async function fake() {
  const f = await startFakeAnthropic({ apiKey: GOOD });
  cleanups.push(() => f.close());
  return f;
}

/** A port nothing listens on: taken, then released. */
async function deadURL(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

it('a key the API accepts is checked with one models request and saved', async () => {
  const f = await fake();
  const a = await app(f.baseURL);
  expect(await a.call({ apiKey: GOOD, check: true })).toEqual({ ok: true, value: { hasApiKey: true, apiKeySource: 'vault' } });
  expect(f.extra.modelListCalls).toBe(1);
  expect(f.requests).toHaveLength(0);
  expect(await a.stored()).toBe(GOOD);
});

it('a key the API refuses (401) fails with KEY_REFUSED, is not saved, and is not quoted', async () => {
  const f = await fake();
  const a = await app(f.baseURL);
  const r = await a.call({ apiKey: BAD, check: true });
  expect(r).toMatchObject({ ok: false, error: { code: 'KEY_REFUSED' } });
  expect(JSON.stringify(r)).toMatch(/did not accept this API key \(401\).*Nothing was saved/);
  expect(JSON.stringify(r)).not.toContain('TypoKey');
  expect(await a.stored()).toBeUndefined();
});

it('a refused replacement leaves the stored key as it was, before any passphrase is asked', async () => {
  const f = await fake();
  const a = await app(f.baseURL);
  await a.call({ apiKey: GOOD, check: true });
  expect(await a.call({ apiKey: BAD, check: true })).toMatchObject({ ok: false, error: { code: 'KEY_REFUSED' } });
  expect(await a.call({ apiKey: BAD, check: true, passphrase: PASS })).toMatchObject({ ok: false, error: { code: 'KEY_REFUSED' } });
  expect(await a.stored()).toBe(GOOD);
});

it('an API that cannot be reached fails with KEY_UNCHECKED and a message that blames the network, not the key', async () => {
  const a = await app(await deadURL());
  const r = await a.call({ apiKey: GOOD, check: true });
  expect(r).toMatchObject({ ok: false, error: { code: 'KEY_UNCHECKED' } });
  expect(JSON.stringify(r)).toMatch(/Could not reach the Anthropic API/);
  expect(JSON.stringify(r)).not.toMatch(/did not accept|GoodKey/);
  expect(await a.stored()).toBeUndefined();
});

it('a connection dropped mid-request is a network failure too, not a refused key', async () => {
  const f = await fake();
  f.extra.modelsHangUp = true;
  const a = await app(f.baseURL);
  const r = await a.call({ apiKey: GOOD, check: true });
  expect(r).toMatchObject({ ok: false, error: { code: 'KEY_UNCHECKED', message: expect.stringMatching(/^Could not reach the Anthropic API/) } });
  expect(await a.stored()).toBeUndefined();
});

it('a server error while checking is KEY_UNCHECKED with the API’s reason, and nothing is saved', async () => {
  const f = await fake();
  f.extra.modelsReply = () => ({ status: 500, body: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'boom' } }) });
  const a = await app(f.baseURL);
  const r = await a.call({ apiKey: GOOD, check: true });
  expect(r).toMatchObject({ ok: false, error: { code: 'KEY_UNCHECKED' } });
  expect(JSON.stringify(r)).toMatch(/could not be checked: .*internal error \(500\)/);
  expect(await a.stored()).toBeUndefined();
});

it('a key with spaces inside is refused as malformed without being sent', async () => {
  const f = await fake();
  const a = await app(f.baseURL);
  expect(await a.call({ apiKey: 'sk-ant two words', check: true })).toMatchObject({ ok: false, error: { code: 'INVALID' } });
  expect(f.extra.modelListCalls).toBe(0);
});

it('without `check` the key is saved as before, with no request (the CLI and older callers)', async () => {
  const f = await fake();
  const a = await app(f.baseURL);
  expect((await a.call({ apiKey: BAD })).ok).toBe(true);
  expect(f.extra.modelListCalls).toBe(0);
  expect(await a.stored()).toBe(BAD);
});
