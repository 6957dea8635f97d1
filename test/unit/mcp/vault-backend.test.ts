/**
 * The vault backend in-process on a real vault: unlocked once at the first
 * call, answers as the memory tool, records the MCP client as the writer,
 * reports changes (its own after each call, others' on a watch), and says
 * clearly why it cannot serve.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVaultBackend, VaultUnavailable, type VaultBackendOptions } from '../../../electron/core/mcp/vault-backend';
import { Projects } from '../../../electron/core/projects/store';
import { ReviewInbox, reviewVault } from '../../../electron/core/review/inbox';
import { Vault } from '../../../electron/core/vault/vault';
import { FAST_KDF, tempDir } from '../memory/helpers';

const PASS = 'pass phrase for the backend';
let template: string;
let root: string;
let dir: string;
let stateDir: string;

// One vault made once (a second project in it); each test works on a copy of its folder, with a state folder of its own.
beforeAll(async () => {
  template = await tempDir('mnemo-mcp-template-');
  const { vault } = await Vault.create(path.join(template, 'vault'), PASS, { kdf: FAST_KDF, stateDir: path.join(template, 'state') });
  await new Projects(vault).create('Work');
  await vault.close();
});
afterAll(async () => {
  await fs.rm(template, { recursive: true, force: true });
});
beforeEach(async () => {
  root = await tempDir('mnemo-mcp-backend-');
  dir = path.join(root, 'vault');
  stateDir = path.join(root, 'state');
  await fs.cp(path.join(template, 'vault'), dir, { recursive: true });
});
/** Backends made by the test, closed after it even when it failed midway (an open one holds its vault). */
const made: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((b) => b.close().catch(() => undefined)));
  await fs.rm(root, { recursive: true, force: true });
});

/** A backend on the test vault; `opened` counts the vault opens, `vault()` is the last one opened. */
function backend(over: Partial<VaultBackendOptions> = {}) {
  let opened = 0;
  let last: Vault | undefined;
  const b = createVaultBackend({
    readOnly: false,
    client: () => 'Claude Code',
    passphrase: async () => PASS,
    async open() {
      opened++;
      last = await Vault.open(dir, { stateDir, readOnly: over.readOnly ?? false });
      return { vault: last, hold: (fn) => fn() };
    },
    ...over,
  });
  made.push(b);
  return { b, opened: () => opened, vault: () => last! };
}

const create = (p: string, file_text: string) => ({ command: 'create', path: p, file_text });

describe('the vault backend', () => {
  it('opens and unlocks the vault only at the first call, once', async () => {
    const { b, opened } = backend();
    expect(opened()).toBe(0);
    expect(await b.call(create('/memories/a.md', 'x'))).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false });
    expect(await b.call({ command: 'view', path: '/memories/a.md' })).toEqual({ content: "Here's the content of /memories/a.md with line numbers:\n     1\tx", is_error: false });
    expect(opened()).toBe(1);
    await b.close();
  });

  it('records every write and deletion with the MCP client as its writer', async () => {
    const { b } = backend();
    await b.call(create('/memories/who.md', 'written through MCP zq8x'));
    await b.call({ command: 'str_replace', path: '/memories/who.md', old_str: 'zq8x', new_str: 'again zq8y' });
    await b.call(create('/memories/gone.md', 'bye'));
    await b.call({ command: 'delete', path: '/memories/gone.md' });
    await b.close();
    const vault = await Vault.open(dir, { stateDir });
    await vault.unlock(PASS);
    expect(vault.versions('/memories/who.md').map((v) => v.by)).toEqual([
      { kind: 'mcp', client: 'Claude Code' },
      { kind: 'mcp', client: 'Claude Code' },
    ]);
    expect(vault.trash().find((t) => t.path === '/memories/gone.md')?.by).toEqual({ kind: 'mcp', client: 'Claude Code' });
    await vault.close();
  });

  it('lists a memory the client moved under the client’s name in the review inbox, not as a script', async () => {
    const setup = await Vault.open(dir, { stateDir });
    await setup.unlock(PASS);
    await setup.memory.writeFile('/memories/mine.md', 'the user wrote this', { mode: 'create', source: 'user' });
    await setup.close();
    const { b } = backend();
    expect((await b.call({ command: 'rename', old_path: '/memories/mine.md', new_path: '/memories/moved.md' })).is_error).toBe(false);
    await b.close();
    const vault = await Vault.open(dir, { stateDir });
    await vault.unlock(PASS);
    const entries = await new ReviewInbox(reviewVault(vault)).list();
    expect(entries.map((e) => ({ path: e.path, by: e.by, from: e.from }))).toEqual([{ path: '/memories/moved.md', by: { kind: 'mcp', client: 'Claude Code' }, from: '/memories/mine.md' }]);
    await vault.close();
  });

  it('tells its listeners which memories its own calls changed', async () => {
    const { b } = backend();
    const seen: string[][] = [];
    b.onChange((p) => seen.push(p));
    await b.call(create('/memories/a.md', 'a'));
    await b.call({ command: 'view', path: '/memories' });
    await b.call({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' });
    await b.call({ command: 'create', path: '/memories/d/x.md', file_text: 'x' });
    await b.call({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' });
    await b.call({ command: 'delete', path: '/memories/e' });
    expect(seen).toEqual([['/memories/a.md'], ['/memories/a.md', '/memories/b.md'], ['/memories/d/x.md'], ['/memories/d/x.md', '/memories/e/x.md'], ['/memories/e/x.md']]);
    await b.close();
  });

  it('notices changes made by another writer while watching', async () => {
    const { b, vault } = backend({ pollMs: 10 });
    await b.call(create('/memories/mine.md', 'mine'));
    const seen = new Promise<string[]>((resolve) => b.onChange(resolve));
    b.watch(true);
    // Another writer: the same vault files changed behind the backend's back.
    await vault().memory.writeFile('/memories/theirs.md', 'theirs', { mode: 'create', source: 'user' });
    expect(await seen).toEqual(['/memories/theirs.md']);
    await b.close();
  });

  it('lists and reads the project it was given, and nothing of the others', async () => {
    const first = backend();
    await first.b.call(create('/memories/first.md', 'first'));
    await first.b.close();
    const { b } = backend({ project: 'work' });
    await b.call(create('/memories/work.md', 'work'));
    expect((await b.list()).map((f) => f.path)).toEqual(['/memories/work.md']);
    expect(await b.read('/memories/work.md')).toBe('work');
    await expect(b.read('/memories/first.md')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(b.read('/memories/../x')).rejects.toThrow(/\.\./);
    await b.close();
  });

  it('answers a missing project with the vault’s own sentence, without unlocking again for the next call', async () => {
    const { b, opened } = backend({ project: 'Nope' });
    expect(await b.call({ command: 'view', path: '/memories' })).toEqual({ content: 'Error: There is no project named "Nope". List them with "mnemo projects".', is_error: true });
    await b.call({ command: 'view', path: '/memories' });
    expect(opened()).toBe(1);
    await b.close();
  });

  it('answers every call with a clear error when there is no passphrase, asking for it only once', async () => {
    let asked = 0;
    const { b, opened } = backend({
      passphrase: async () => {
        asked++;
        throw new VaultUnavailable('Mnemo could not open your memory: no passphrase.', true);
      },
    });
    for (let i = 0; i < 3; i++) expect(await b.call({ command: 'view', path: '/memories' })).toEqual({ content: 'Error: Mnemo could not open your memory: no passphrase.', is_error: true });
    await expect(b.list()).rejects.toThrow('no passphrase');
    expect(asked).toBe(1);
    expect(opened()).toBe(0);
    await b.close();
  });

  it('says the passphrase is wrong, and lets the vault go (another process can open it)', async () => {
    const { b } = backend({ passphrase: async () => 'not the passphrase' });
    const answer = await b.call({ command: 'view', path: '/memories' });
    expect(answer.is_error).toBe(true);
    expect(answer.content).toMatch(/^Error: Mnemo could not open your memory: the passphrase this server was given does not open the vault\./);
    const other = await Vault.open(dir, { stateDir });
    await other.close();
    await b.close();
  });

  it('says there is no vault without naming the folder', async () => {
    const { b } = backend({
      open: async () => {
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${root}/nowhere/vault.json'`), { code: 'ENOENT' });
      },
    });
    const answer = await b.call({ command: 'view', path: '/memories' });
    expect(answer.is_error).toBe(true);
    expect(answer.content).not.toContain(root);
    expect(answer.content).toMatch(/ENOENT/);
    await b.close();
  });

  it('returns the user’s memory guidance from the vault’s settings', async () => {
    const setup = await Vault.open(dir, { stateDir });
    await setup.unlock(PASS);
    await setup.internal.putJSON('settings', { memoryGuidance: 'Only remember things about gardening.' });
    await setup.close();
    const { b } = backend();
    expect(await b.guidance()).toBe('Only remember things about gardening.');
    await b.close();
  });
});
