/**
 * A memory a user or Claude made at /memories/.mnemo-projects before projects
 * existed is moved aside when the vault opens, durably and with a notice, so
 * every project works and the memory can be reached again.
 */
import { describe, expect, it } from 'vitest';
import { moveAsidePreProjectsMemory, MOVED_ASIDE } from '../../../electron/core/projects/legacy';
import { Projects } from '../../../electron/core/projects/store';
import { validateMemoryPath } from '../../../electron/core/memory/paths';
import { tempVault } from '../vault/helpers';

const write = (v: { memory: { writeFile: (p: string, t: string, o: { mode: 'create'; source: 'claude' }) => Promise<unknown> } }, p: string, t: string) =>
  v.memory.writeFile(p, t, { mode: 'create', source: 'claude' });

describe('a pre-projects memory at /memories/.mnemo-projects', () => {
  it('a file there is moved aside on open, with a notice; every other project then works', async () => {
    const t = await tempVault();
    try {
      await write(t.vault, '/memories/.mnemo-projects', 'an old note');
      const work = await new Projects(t.vault).create('Work');
      const inWork = await new Projects(t.vault).memoryVault(work.id);
      // Today: the file stands where every other project's folder must go.
      await expect(write(inWork, '/memories/a.md', 'a')).rejects.toBeDefined();

      const notice = await moveAsidePreProjectsMemory(t.vault);
      expect(notice?.text).toContain(MOVED_ASIDE);
      expect(t.vault.memory.stat('/memories/.mnemo-projects')).toBeUndefined();
      expect(await t.vault.memory.readFile(MOVED_ASIDE)).toBe('an old note');
      await write(inWork, '/memories/a.md', 'a');
      // Durable: a reopened vault still has it moved, and has nothing more to move.
      const again = await t.reopen();
      expect(await again.memory.readFile(MOVED_ASIDE)).toBe('an old note');
      expect(await moveAsidePreProjectsMemory(again)).toBeUndefined();
    } finally {
      await t.cleanup();
    }
  });

  it('memories in a folder there that no project owns are moved aside; the projects’ own folders stay', async () => {
    const t = await tempVault();
    try {
      const work = await new Projects(t.vault).create('Work');
      const inWork = await new Projects(t.vault).memoryVault(work.id);
      await write(inWork, '/memories/w.md', 'work');
      await write(t.vault, '/memories/.mnemo-projects/old/notes.md', 'old notes');
      await write(t.vault, '/memories/.mnemo-projects/loose.md', 'loose');
      const notice = await moveAsidePreProjectsMemory(t.vault);
      expect(notice).toBeDefined();
      expect(await t.vault.memory.readFile(`${MOVED_ASIDE}/old/notes.md`)).toBe('old notes');
      expect(await t.vault.memory.readFile(`${MOVED_ASIDE}/loose.md`)).toBe('loose');
      expect(await inWork.memory.readFile('/memories/w.md')).toBe('work');
      expect(await moveAsidePreProjectsMemory(t.vault)).toBeUndefined();
    } finally {
      await t.cleanup();
    }
  });
});

describe('the CLI on a vault with a pre-projects memory', () => {
  it('a writing command moves it aside and says so on stderr; the memory is then reachable', async () => {
    const { initVault, memoryLines, mnemo, PASS } = await import('../cli/helpers');
    const { defaultStateDir } = await import('../../../electron/core/app-paths');
    const { Vault } = await import('../../../electron/core/vault/vault');
    const fs = await import('node:fs/promises');
    const t = await initVault();
    try {
      const v = await Vault.open(t.vault, { stateDir: defaultStateDir(t.env) });
      await v.unlock(PASS);
      await write(v, '/memories/.mnemo-projects', 'an old note');
      await v.close();
      const res = await mnemo(['memory', '--vault', t.vault], { env: t.env, stdin: memoryLines({ command: 'view', path: `${MOVED_ASIDE}` }) });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain(`moved to ${MOVED_ASIDE}`);
      expect(res.stdout).toContain('an old note');
    } finally {
      await fs.rm(t.root, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the app on a vault with a pre-projects memory', () => {
  it('unlock moves it aside and hands the window a notice saying where it went', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { createHandlers } = await import('../../../electron/main/handlers');
    const { vaultDirIn } = await import('../../../electron/core/app-paths');
    const { Vault } = await import('../../../electron/core/vault/vault');
    const userData = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-preproj-'));
    try {
      const KDF = { opslimit: 2, memlimit: 64 * 1024 * 1024 };
      const PASS = 'lantern orbit meadow quartz 8142 ferry';
      const stateDir = path.join(userData, 'state');
      const made = await Vault.create(vaultDirIn(userData), PASS, { kdf: KDF, stateDir });
      await write(made.vault, '/memories/.mnemo-projects', 'an old note');
      await made.vault.close();
      const { handlers } = createHandlers({ userDataDir: userData, stateDir, env: {}, kdf: KDF, pickDirectory: async () => undefined, emit: () => undefined });
      const report = await handlers.vaultUnlock({ passphrase: PASS });
      expect(report.notices?.join(' ')).toContain(MOVED_ASIDE);
      await handlers.vaultLock();
    } finally {
      // The device's marks may still be settling after the lock.
      await fs.rm(userData, { recursive: true, force: true, maxRetries: 10 });
    }
  }, 60_000);
});

describe('a pre-projects memory too long to move under the moved-aside name', () => {
  it('is moved where its paths stay within the limits, so it can be reached', async () => {
    const t = await tempVault();
    try {
      // A path at the length limit: under the longer moved-aside name it would be too long to read or export.
      const deep = `/memories/.mnemo-projects/old/${'n'.repeat(200)}/${'o'.repeat(200)}/${'p'.repeat(200)}/${'q'.repeat(200)}/`;
      const file = deep + 'r'.repeat(1024 - Buffer.byteLength(deep) - 3) + '.md';
      expect(Buffer.byteLength(file)).toBe(1024);
      await write(t.vault, file, 'old deep note');
      const notice = await moveAsidePreProjectsMemory(t.vault);
      expect(notice).toBeDefined();
      for (const e of t.vault.memory.list('/memories', 40)) expect(() => validateMemoryPath(e.path)).not.toThrow();
      const now = file.replace('/memories/.mnemo-projects/', '/memories/');
      expect(await t.vault.memory.readFile(now)).toBe('old deep note');
      expect(notice?.text).toContain('/memories/old');
      expect(t.vault.memory.stat('/memories/.mnemo-projects')?.kind ?? 'none').not.toBe('file');
      expect(t.vault.memory.list('/memories/.mnemo-projects', 1)).toEqual([]);
    } finally {
      await t.cleanup();
    }
  });
});
