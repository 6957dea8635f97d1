/**
 * "Open a vault…" in main: the folder comes only from main's picker, a refused
 * or cancelled choice changes nothing, an unlocked vault is locked (drafts
 * kept) before another is opened, and the choice is kept on this computer —
 * `--vault` / MNEMO_VAULT going before it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultVaultDir, requestedVaultDir, vaultDirIn } from '../../../electron/core/app-paths';
import { Vault } from '../../../electron/core/vault/vault';
import { loadVaultFolder, vaultSwitch } from '../../../electron/main/device-prefs';
import { createHandlers, dispatch } from '../../../electron/main/handlers';
import type { EventName } from '../../../electron/shared/ipc';
import { snapshot } from '../cli/helpers';

const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
const PASS = 'lantern orbit meadow quartz 8142 ferry';
const OTHER_PASS = 'copper willow 7731 harbour signal drift';
const dirs: string[] = [];
const sessions: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function tmp(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** The app's handlers on `userData`, with a scripted picker (each call takes the next answer). */
function app(userData: string, answers: Array<string | undefined> = [], more: { vaultDir?: string } = {}) {
  const emitted: Array<{ event: EventName; payload: unknown }> = [];
  const picker = vi.fn(async () => answers.shift());
  const made = createHandlers({
    userDataDir: userData,
    stateDir: path.join(userData, 'state'),
    env: {},
    kdf: KDF,
    pickDirectory: async () => undefined,
    pickVaultFolder: picker,
    emit: (event, payload) => void emitted.push({ event, payload }),
    ...more,
  });
  sessions.push(made.session);
  const call = async <T = unknown>(name: Parameters<typeof dispatch>[1], ...args: unknown[]): Promise<T> => {
    const r = await dispatch(made.handlers, name, args);
    if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code, key: r.error.key });
    return r.value as T;
  };
  return { ...made, emitted, picker, call };
}

/** A vault made elsewhere (as a sync app would bring it), holding one memory. */
async function vaultAt(dir: string, stateDir: string): Promise<void> {
  const { vault } = await Vault.create(dir, OTHER_PASS, { kdf: KDF, stateDir });
  await vault.memory.writeFile('/memories/elsewhere.md', 'from the synced vault', { mode: 'create', source: 'user' });
  await vault.close();
}

describe('Open a vault…', () => {
  it('opens a vault in another folder: the unlocked one is locked first with its drafts kept, and the choice is kept for the next start', async () => {
    const userData = await tmp('mnemo-ov-');
    const synced = path.join(await tmp('mnemo-sync-'), 'mnemo-vault');
    await vaultAt(synced, path.join(userData, 'other-state'));
    const a = app(userData, [synced]);
    await a.call('vaultCreate', { passphrase: PASS });
    await a.call('draftsPut', { kind: 'chat', draft: { text: 'typed before the switch' } });

    expect(await a.call('vaultOpenFolder')).toEqual({ outcome: 'vault', folder: { isDefault: false, name: 'mnemo-vault', fromStart: false } });
    expect(a.picker).toHaveBeenCalledTimes(1);
    expect(a.emitted.filter((e) => e.event === 'vaultLocked')).toEqual([{ event: 'vaultLocked', payload: { reason: 'user' } }]);
    expect(await a.call('vaultStatus')).toEqual({ exists: true, unlocked: false, rolledBack: false });
    // The other vault opens with its own passphrase, not this one's.
    await expect(a.call('vaultUnlock', { passphrase: PASS })).rejects.toMatchObject({ code: 'BAD_PASSPHRASE' });
    await a.call('vaultUnlock', { passphrase: OTHER_PASS });
    expect(await a.session.unlocked().memory.readFile('/memories/elsewhere.md')).toBe('from the synced vault');
    await a.session.close();

    // Kept on this computer, outside every vault; the next start opens it.
    expect(loadVaultFolder(userData)).toBe(synced);
    expect(await fs.readdir(synced)).not.toContain('vault-folder.json');
    const b = app(userData);
    expect(b.session.dir).toBe(synced);
    expect(await b.call('vaultFolder')).toEqual({ isDefault: false, name: 'mnemo-vault', fromStart: false });
    // The default vault still holds the draft its lock kept.
    await b.call('vaultUseDefaultFolder');
    await b.call('vaultUnlock', { passphrase: PASS });
    expect(await b.call('draftsGet')).toMatchObject({ chat: { text: 'typed before the switch' } });
  });

  it('offers an empty folder (sync markers only) for a new vault, kept as the choice only once the vault is made', async () => {
    const userData = await tmp('mnemo-ov-');
    const empty = await tmp('mnemo-empty-');
    await fs.mkdir(path.join(empty, '.stfolder'));
    const a = app(userData, [empty]);
    expect(await a.call('vaultOpenFolder')).toMatchObject({ outcome: 'empty', folder: { isDefault: false } });
    expect(await a.call('vaultStatus')).toMatchObject({ exists: false });
    expect(loadVaultFolder(userData)).toBeUndefined();
    await a.call('vaultCreate', { passphrase: PASS });
    expect(await fs.readdir(empty)).toContain('vault.json');
    await expect(fs.stat(vaultDirIn(userData))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(loadVaultFolder(userData)).toBe(empty);
  });

  it('refuses a folder holding other files, or part of a vault without vault.json, and changes nothing', async () => {
    const userData = await tmp('mnemo-ov-');
    const other = await tmp('mnemo-other-');
    await fs.writeFile(path.join(other, 'notes.txt'), 'not a vault');
    const headless = path.join(await tmp('mnemo-headless-'), 'v');
    await vaultAt(headless, path.join(userData, 'other-state'));
    await fs.rm(path.join(headless, 'vault.json'));
    const a = app(userData, [other, headless]);
    await a.call('vaultCreate', { passphrase: PASS });
    const before = [await snapshot(other), await snapshot(headless)];

    await expect(a.call('vaultOpenFolder')).rejects.toMatchObject({ code: 'INVALID', key: 'errors:vaultFolder.notEmpty' });
    await expect(a.call('vaultOpenFolder')).rejects.toMatchObject({ code: 'DAMAGED', key: 'errors:vaultFolder.headless' });
    expect(await a.call('vaultStatus')).toEqual({ exists: true, unlocked: true, rolledBack: false });
    expect(a.session.dir).toBe(vaultDirIn(userData));
    expect(a.emitted.some((e) => e.event === 'vaultLocked')).toBe(false);
    expect([await snapshot(other), await snapshot(headless)]).toEqual(before);
    expect(loadVaultFolder(userData)).toBeUndefined();
  });

  it("refuses an empty folder inside the open vault's own folder", async () => {
    const userData = await tmp('mnemo-ov-');
    const inside = path.join(vaultDirIn(userData), 'devices', 'empty');
    const a = app(userData, [inside]);
    await a.call('vaultCreate', { passphrase: PASS });
    await fs.mkdir(inside, { recursive: true });
    await expect(a.call('vaultOpenFolder')).rejects.toMatchObject({ code: 'INVALID', key: 'errors:vaultFolder.insideVault' });
    expect(a.session.isUnlocked()).toBe(true);
    expect(await fs.readdir(inside)).toEqual([]);
  });

  it('changes nothing when the picker is cancelled, and shows one picker at a time', async () => {
    const userData = await tmp('mnemo-ov-');
    const a = app(userData);
    await a.call('vaultCreate', { passphrase: PASS });
    expect(await a.call('vaultOpenFolder')).toEqual({ outcome: 'cancelled', folder: { isDefault: true, name: 'vault', fromStart: false } });
    expect(a.session.isUnlocked()).toBe(true);
    expect(a.emitted.some((e) => e.event === 'vaultLocked')).toBe(false);

    let answer: (dir: string | undefined) => void = () => undefined;
    a.picker.mockImplementationOnce(() => new Promise((r) => (answer = r)));
    const first = a.call('vaultOpenFolder');
    await expect(a.call('vaultOpenFolder')).rejects.toMatchObject({ code: 'IN_USE' });
    answer(undefined);
    expect(await first).toMatchObject({ outcome: 'cancelled' });
    expect(a.picker).toHaveBeenCalledTimes(2);
  });

  it('goes back to the default folder and forgets the choice', async () => {
    const userData = await tmp('mnemo-ov-');
    const synced = path.join(await tmp('mnemo-sync-'), 'v');
    await vaultAt(synced, path.join(userData, 'other-state'));
    const a = app(userData, [synced]);
    await a.call('vaultOpenFolder');
    await a.call('vaultUnlock', { passphrase: OTHER_PASS });
    expect(await a.call('vaultUseDefaultFolder')).toEqual({ isDefault: true, name: 'vault', fromStart: false });
    expect(a.emitted.filter((e) => e.event === 'vaultLocked')).toHaveLength(1);
    expect(await a.call('vaultStatus')).toMatchObject({ exists: false, unlocked: false });
    expect(loadVaultFolder(userData)).toBeUndefined();
    expect(app(userData).session.dir).toBe(vaultDirIn(userData));
  });

  it('takes no folder from the window: a path passed to any of its calls is refused before the picker runs', async () => {
    const userData = await tmp('mnemo-ov-');
    const attacker = await tmp('mnemo-attacker-');
    await vaultAt(path.join(attacker, 'v'), path.join(userData, 'other-state'));
    const a = app(userData);
    for (const [name, args] of [
      ['vaultOpenFolder', [path.join(attacker, 'v')]],
      ['vaultOpenFolder', [{ dir: path.join(attacker, 'v') }]],
      ['vaultUseDefaultFolder', [path.join(attacker, 'v')]],
      ['vaultFolder', [{ path: attacker }]],
    ] as const) {
      expect(await dispatch(a.handlers, name, args)).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    }
    // Nor through this computer's preferences, which the window may set.
    expect(await dispatch(a.handlers, 'prefsSet', [{ vaultFolder: path.join(attacker, 'v'), dir: path.join(attacker, 'v') }])).toMatchObject({ ok: true });
    expect(a.picker).not.toHaveBeenCalled();
    expect(app(userData).session.dir).toBe(vaultDirIn(userData));
    expect(loadVaultFolder(userData)).toBeUndefined();
    // What the window learns of a folder is its name, never where it is.
    const told = JSON.stringify(await a.call('vaultFolder'));
    expect(told).not.toContain(os.tmpdir());
    expect(told).not.toContain(userData);
  });

  it('refuses to choose when main has no picker', async () => {
    const userData = await tmp('mnemo-ov-');
    const { handlers } = createHandlers({ userDataDir: userData, stateDir: path.join(userData, 'state'), env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
    await expect(handlers.vaultOpenFolder()).rejects.toMatchObject({ code: 'INVALID' });
  });
});

describe('--vault and MNEMO_VAULT for the app', () => {
  it('opens the folder the app was started with before the one chosen last, and says so', async () => {
    const userData = await tmp('mnemo-ov-');
    const chosen = path.join(await tmp('mnemo-sync-'), 'chosen');
    const started = path.join(await tmp('mnemo-flag-'), 'started');
    await vaultAt(chosen, path.join(userData, 'other-state'));
    await app(userData, [chosen]).call('vaultOpenFolder');
    const a = app(userData, [], { vaultDir: started });
    expect(a.session.dir).toBe(started);
    expect(await a.call('vaultFolder')).toEqual({ isDefault: false, name: 'started', fromStart: true });
    // Started with it, not chosen: the choice made before stays for starts without the flag.
    expect(loadVaultFolder(userData)).toBe(chosen);
  });

  it('reads --vault DIR and --vault=DIR from the command line (relative to the working folder), else none', () => {
    expect(vaultSwitch(['/opt/Mnemo/mnemo', '--vault', '/srv/sync/v'], '/home/u')).toBe('/srv/sync/v');
    expect(vaultSwitch(['electron', '.', '--no-sandbox', '--vault=sync/v'], '/home/u')).toBe('/home/u/sync/v');
    expect(vaultSwitch(['/opt/Mnemo/mnemo', '--', '--vault', '/x'], '/home/u')).toBeUndefined();
    expect(vaultSwitch(['/opt/Mnemo/mnemo', '--vault'], '/home/u')).toBeUndefined();
    expect(vaultSwitch(['/opt/Mnemo/mnemo'], '/home/u')).toBeUndefined();
  });

  it('resolves the flag, then MNEMO_VAULT, as the CLI does', () => {
    expect(requestedVaultDir('/flag', { MNEMO_VAULT: '/env' })).toBe('/flag');
    expect(requestedVaultDir(undefined, { MNEMO_VAULT: '/env' })).toBe('/env');
    expect(requestedVaultDir('', {})).toBeUndefined();
    expect(defaultVaultDir({ XDG_CONFIG_HOME: '/cfg' })).toBe(process.platform === 'linux' ? '/cfg/Mnemo/vault' : defaultVaultDir({ XDG_CONFIG_HOME: '/cfg' }));
  });
});
