/**
 * A page that asks in a loop must not wear the user down with main's own
 * dialog: once the user says Cancel, main shows no new dialog for a while
 * (the passphrase still works), so no stream of dialogs waits for a misclick.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../electron/core/chat/settings-store';
import { CONSENT_COOLDOWN_MS } from '../../../electron/main/handlers/consent';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { CallName } from '../../../electron/shared/ipc';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'correct horse battery staple';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('main’s own dialog after the user cancels it', () => {
  it('is not shown again for a while: the window’s asks are refused, the passphrase still works, and later it shows again', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-cooldown-'));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    let clock = 1_000_000;
    let shown = 0;
    let answer = false;
    const made = createHandlers({
      userDataDir: dir,
      stateDir: path.join(dir, 'state'),
      env: {},
      kdf: KDF,
      now: () => clock,
      pickDirectory: async () => undefined,
      emit: () => undefined,
      confirmChange: async () => (shown++, answer),
    });
    cleanups.push(() => made.session.close());
    const call = (name: CallName, ...args: unknown[]) => dispatch(made.handlers, name, args);
    expect((await call('vaultCreate', { passphrase: PASS })).ok).toBe(true);
    expect((await call('settingsSet', { approvalMode: true })).ok).toBe(true);

    expect(await call('settingsSet', { approvalMode: false })).toMatchObject({ ok: false, error: { code: 'NEEDS_CONSENT' } });
    expect(shown).toBe(1);
    answer = true;
    for (let i = 0; i < 10; i++) expect(await call('settingsSet', { approvalMode: false })).toMatchObject({ ok: false, error: { code: 'NEEDS_CONSENT' } });
    expect(shown).toBe(1);
    expect((await loadSettings(made.session.unlocked())).approvalMode).toBe(true);
    // The passphrase is not held back by the pause.
    expect((await call('settingsSet', { historyDepth: 10, passphrase: PASS })).ok).toBe(true);
    clock += CONSENT_COOLDOWN_MS + 1;
    expect((await call('settingsSet', { approvalMode: false })).ok).toBe(true);
    expect(shown).toBe(2);
  });
});
