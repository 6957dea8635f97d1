/**
 * The app's real handler table with a fresh vault and one conversation, for
 * the attachment tests: calls go through dispatch (the contract's zod schemas
 * included) and the Anthropic API is the fake.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { Handlers } from '../../../electron/main/handlers/types';
import type { CallName, Result } from '../../../electron/shared/ipc';
import { reply, startFakeAnthropic, text } from '../../fake-anthropic/server';

export const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
export const PASS = 'correct horse battery staple';

export type ChatEvent = { type: string; message?: string };

export interface RigOptions {
  /** Start of the temporary folder's name. */
  prefix: string;
  /** What main's open dialog answers; no files unless given. */
  pickFiles?: () => Promise<string[]>;
  /** Sees every chat event sent to the window. */
  onEvent?: (event: ChatEvent) => void;
}

export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** The value of a successful call; a failed one throws with its code and message. */
export const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

/** Starts the rig; what it opens is closed by `cleanup` (run it in afterEach). */
export async function attachmentRig(cleanup: Array<() => Promise<void>>, options: RigOptions) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), options.prefix));
  const fake = await startFakeAnthropic();
  cleanup.push(async () => {
    await fake.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const done: Array<() => void> = [];
  const made = createHandlers({
    userDataDir: dir,
    stateDir: path.join(dir, 'state'),
    env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL },
    kdf: KDF,
    pickDirectory: async () => undefined,
    pickFiles: options.pickFiles ?? (async () => []),
    emit: (event, payload) => {
      if (event !== 'chatEvent') return;
      const chatEvent = (payload as { event: ChatEvent }).event;
      options.onEvent?.(chatEvent);
      if (chatEvent.type === 'done') done.splice(0).forEach((f) => f());
    },
  });
  cleanup.unshift(() => made.session.close());
  const call = async <K extends CallName>(name: K, ...args: unknown[]) => (await dispatch(made.handlers as Handlers, name, args)) as Result<never>;
  expect((await call('vaultCreate', { passphrase: PASS })).ok).toBe(true);
  const conv = ((await call('chatCreate')) as { value: { id: string } }).value;
  // `done` reaches the window just before main lets go of the turn: wait for both.
  const turnDone = () =>
    new Promise<void>((resolve) => done.push(resolve)).then(async () => {
      while (made.session.turns.size > 0) await new Promise((r) => setTimeout(r, 5));
    });
  /** Sends `words` with held attachments to conversation `id` and waits for the turn to end; the fake answers `answer`. */
  const sendTurn = async (id: string, words: string, attachments: string[], answer: string) => {
    fake.script(reply(text(answer)));
    const finished = turnDone();
    value(await call('chatSend', { id, text: words, attachments }));
    await finished;
  };
  return { ...made, dir, fake, call, conv, turnDone, sendTurn };
}
