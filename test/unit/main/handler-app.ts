/**
 * The app's main-process handlers on a fresh vault, with the fake Anthropic
 * server as the API: what a window would call, through the same dispatch.
 * Cleaned up by the caller's `afterEach(closeApps)`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { EventName } from '../../../electron/shared/ipc';
import { startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';

export const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
export const PASS = 'correct horse battery staple';
const cleanup: Array<() => Promise<void>> = [];

/** Closes every app made since the last call (use in afterEach). */
export async function closeApps(): Promise<void> {
  for (const c of cleanup.splice(0).reverse()) await c();
}

/** A created, unlocked vault's handlers; `call` throws the error a window would get. Events main sends are in `emitted`. */
export async function handlerApp(prefix = 'mnemo-app-', more: Partial<Parameters<typeof createHandlers>[0]> = {}) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const fake: FakeAnthropic = await startFakeAnthropic();
  const emitted: Array<{ event: EventName; payload: unknown }> = [];
  // The environment main reads: a test may change it (remove the key) and main sees the change.
  const env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL };
  const made = createHandlers({
    userDataDir: dir,
    stateDir: path.join(dir, 'state'),
    env,
    kdf: KDF,
    pickDirectory: async () => undefined,
    pickSaveFile: async () => undefined,
    emit: (event, payload) => void emitted.push({ event, payload }),
    ...more,
  });
  cleanup.push(async () => {
    await made.session.close();
    await fake.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  /** A call's value; its refusal thrown as an Error with the code main gave. */
  const call = async <T>(name: Parameters<typeof dispatch>[1], ...args: unknown[]): Promise<T> => {
    const r = await dispatch(made.handlers, name, args);
    if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
    return r.value as T;
  };
  /** The code a call is refused with, or 'OK'. */
  const refused = async (name: Parameters<typeof dispatch>[1], ...args: unknown[]): Promise<string> => {
    const r = await dispatch(made.handlers, name, args);
    return r.ok ? 'OK' : r.error.code;
  };
  await call('vaultCreate', { passphrase: PASS });
  return { ...made, dir, env, fake, emitted, call, refused };
}
