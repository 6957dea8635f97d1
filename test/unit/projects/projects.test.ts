/**
 * Projects in the vault: the list, name rules, and each project's own
 * `/memories` as the memory tool and the editor see it.
 */
import { describe, expect, it } from 'vitest';
import { transferMemory } from '../../../electron/core/projects/move';
import { MemoryScope, PROJECTS_DIR, scopeOps } from '../../../electron/core/projects/scope';
import { FIRST_PROJECT_ID, Projects } from '../../../electron/core/projects/store';
import type { MemoryOps } from '../../../electron/core/vault/types';
import type { TempVault } from '../vault/helpers';
import { eachWithTempVault, tool } from './helpers';

let t: TempVault;
eachWithTempVault((v) => (t = v));
const toolIn = async (projectId: string) => tool(await new Projects(t.vault).memoryVault(projectId));

describe('the project list', () => {
  it('a vault starts with one project, Default, and opening it writes nothing', async () => {
    const projects = new Projects(t.vault);
    expect((await projects.list()).map((p) => [p.id, p.name])).toEqual([[FIRST_PROJECT_ID, 'Default']]);
    expect(t.vault.internal.keys('projects')).toEqual([]);
  });

  it('memories written before projects existed belong to the first project, unchanged', async () => {
    await t.vault.memory.writeFile('/memories/old.md', 'from before', { mode: 'create', source: 'user' });
    const run = await toolIn(FIRST_PROJECT_ID);
    expect((await run({ command: 'view', path: '/memories/old.md' })).content).toContain('from before');
    expect(t.vault.memory.stat('/memories/old.md')).toMatchObject({ kind: 'file', version: 1 });
  });

  it('create, rename and delete survive reopening the vault', async () => {
    const work = await new Projects(t.vault).create('Work');
    await new Projects(t.vault).create('Home');
    await new Projects(t.vault).rename(work.id, 'Office');
    const home = await new Projects(t.vault).byName('home');
    await new Projects(t.vault).delete(home.id);
    await t.reopen();
    const projects = new Projects(t.vault);
    expect((await projects.list()).map((p) => p.name)).toEqual(['Default', 'Office']);
    expect((await projects.listDeleted()).map((p) => p.name)).toEqual(['Home']);
  });

  it('refuses an empty, overlong, control-character or duplicate name (case-insensitive) and changes nothing', async () => {
    const projects = new Projects(t.vault);
    await projects.create('Work');
    await expect(projects.create('   ')).rejects.toThrow(/needs a name/);
    await expect(projects.create('x'.repeat(101))).rejects.toThrow(/at most 100 characters/);
    await expect(projects.create('a\nb')).rejects.toThrow(/control characters/);
    await expect(projects.create('a\u202eb')).rejects.toThrow(/control characters/);
    await expect(projects.create('WORK')).rejects.toMatchObject({ code: 'EXISTS' });
    await expect(projects.rename(FIRST_PROJECT_ID, 'work')).rejects.toMatchObject({ code: 'EXISTS' });
    expect(await projects.create('x'.repeat(100))).toMatchObject({ name: 'x'.repeat(100) });
    expect((await projects.list()).map((p) => p.name)).toEqual(['Default', 'Work', 'x'.repeat(100)]);
  });

  it('renaming a project to its own name in another case is allowed', async () => {
    const projects = new Projects(t.vault);
    const p = await projects.create('work');
    expect((await projects.rename(p.id, 'Work')).name).toBe('Work');
  });

  it('the first project cannot be deleted', async () => {
    await expect(new Projects(t.vault).delete(FIRST_PROJECT_ID)).rejects.toThrow(/cannot be deleted; rename it instead/);
  });
});

describe('each project has its own /memories', () => {
  it('a memory written in one project is invisible in another, both ways', async () => {
    const other = await new Projects(t.vault).create('Other');
    const inFirst = await toolIn(FIRST_PROJECT_ID);
    const inOther = await toolIn(other.id);
    expect((await inOther({ command: 'create', path: '/memories/secret.md', file_text: 'other only' })).is_error).toBe(false);
    expect((await inFirst({ command: 'create', path: '/memories/first.md', file_text: 'first only' })).is_error).toBe(false);

    expect(await inFirst({ command: 'view', path: '/memories/secret.md' })).toEqual({ content: 'Error: The path /memories/secret.md does not exist. Please provide a valid path.', is_error: true });
    expect(await inOther({ command: 'view', path: '/memories/first.md' })).toEqual({ content: 'Error: The path /memories/first.md does not exist. Please provide a valid path.', is_error: true });
    const firstListing = (await inFirst({ command: 'view', path: '/memories' })).content;
    const otherListing = (await inOther({ command: 'view', path: '/memories' })).content;
    expect(firstListing).toContain('/memories/first.md');
    expect(firstListing).not.toContain('secret');
    expect(firstListing).not.toContain('mnemo-projects');
    expect(otherListing).toContain('/memories/secret.md');
    expect(otherListing).not.toContain('first.md');
    expect((await inOther({ command: 'view', path: '/memories/secret.md' })).content).toContain('other only');
  });

  it('a new project\'s /memories is an empty folder to view and list', async () => {
    const fresh = await new Projects(t.vault).create('Fresh');
    expect(await (await toolIn(fresh.id))({ command: 'view', path: '/memories' })).toMatchObject({ is_error: false, content: expect.stringContaining('/memories') });
    expect((await new Projects(t.vault).memoryVault(fresh.id)).memory.list('/memories', Infinity)).toEqual([]);
  });

  it('listing the first project gives its entries in path order without ever listing the other projects\' folder', async () => {
    const other = await new Projects(t.vault).create('Other');
    for (const p of ['/memories/a.md', '/memories/a/b.md', '/memories/a-b.md', '/memories/z/y/x.md', '/memories/.hidden.md']) {
      await t.vault.memory.writeFile(p, p, { mode: 'create', source: 'user' });
    }
    await (await new Projects(t.vault).memoryVault(other.id)).memory.writeFile('/memories/o.md', 'o', { mode: 'create', source: 'user' });
    const listed: string[] = [];
    const raw = t.vault.memory;
    // Records every entry the vault had to produce, so a listing that reads the other projects and drops them shows up.
    const spying: MemoryOps = {
      ...raw,
      stat: (p) => raw.stat(p),
      list: (dir, depth) => {
        const entries = raw.list(dir, depth);
        listed.push(...entries.map((e) => e.path));
        return entries;
      },
    };
    const scoped = scopeOps(spying, new MemoryScope('/memories'));
    const expected = raw.list('/memories', Infinity).filter((e) => e.path !== PROJECTS_DIR && !e.path.startsWith(`${PROJECTS_DIR}/`));
    expect(scoped.list('/memories', Infinity)).toEqual(expected);
    expect(scoped.list('/memories', 1).map((e) => e.path)).toEqual(['/memories/.hidden.md', '/memories/a', '/memories/a-b.md', '/memories/a.md', '/memories/z']);
    expect(listed.filter((p) => p.startsWith(`${PROJECTS_DIR}/`))).toEqual([]);
  });

  it('the first project cannot reach the folder that holds the other projects', async () => {
    const other = await new Projects(t.vault).create('Other');
    await (await toolIn(other.id))({ command: 'create', path: '/memories/secret.md', file_text: 'other only' });
    const inFirst = await toolIn(FIRST_PROJECT_ID);
    for (const input of [
      { command: 'view', path: '/memories/.mnemo-projects' },
      { command: 'view', path: `/memories/.mnemo-projects/${other.id}/secret.md` },
      { command: 'delete', path: '/memories/.mnemo-projects' },
      { command: 'create', path: '/memories/.mnemo-projects/x.md', file_text: 'x' },
    ]) {
      const r = await inFirst(input);
      expect(r.is_error).toBe(true);
      expect(r.content).toMatch(/reserved/);
    }
    expect((await (await toolIn(other.id))({ command: 'view', path: '/memories/secret.md' })).content).toContain('other only');
  });

  it('errors and listings in another project never name the internal folder', async () => {
    const other = await new Projects(t.vault).create('Other');
    const run = await toolIn(other.id);
    await run({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    const answers = [
      await run({ command: 'create', path: '/memories/a.md/b.md', file_text: 'b' }),
      await run({ command: 'str_replace', path: '/memories/missing.md', old_str: 'x', new_str: 'y' }),
      await run({ command: 'delete', path: '/memories' }),
      await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/a.md/c.md' }),
      await run({ command: 'view', path: '/memories' }),
    ];
    for (const a of answers) expect(a.content).not.toMatch(/mnemo-projects|[0-9a-f]{16}/);
    const scoped = await new Projects(t.vault).memoryVault(other.id);
    expect(scoped.memory.list('/memories', Infinity).map((e) => e.path)).toEqual(['/memories/a.md']);
    expect(scoped.history('/memories/a.md')).toEqual([]);
  });

  it('a deleted project keeps its memories, and restore brings them back', async () => {
    const projects = new Projects(t.vault);
    const gone = await projects.create('Gone');
    await (await toolIn(gone.id))({ command: 'create', path: '/memories/kept.md', file_text: 'still here' });
    await projects.delete(gone.id);
    await expect(projects.memoryVault(gone.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await projects.create('Gone');
    const back = await projects.restore(gone.id);
    expect(back.name).toBe('Gone (2)');
    expect((await (await toolIn(gone.id))({ command: 'view', path: '/memories/kept.md' })).content).toContain('still here');
  });
});

describe('moving and copying a memory between projects', () => {
  it('copy leaves the original; move takes the file and its history along', async () => {
    const other = await new Projects(t.vault).create('Other');
    const first = await new Projects(t.vault).memoryVault(FIRST_PROJECT_ID);
    await first.memory.writeFile('/memories/n.md', 'v1', { mode: 'create', source: 'user' });
    await first.memory.writeFile('/memories/n.md', 'v2', { mode: 'update', source: 'user' });
    await transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/n.md', toProject: other.id, toPath: '/memories/copy.md', mode: 'copy', source: 'user' });
    const moved = await transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/n.md', toProject: other.id, mode: 'move', source: 'user' });
    expect(moved).toMatchObject({ path: '/memories/n.md', version: 2 });
    const there = await new Projects(t.vault).memoryVault(other.id);
    expect(await there.memory.readFile('/memories/copy.md')).toBe('v2');
    expect(await there.memory.readFile('/memories/n.md')).toBe('v2');
    expect(there.history('/memories/n.md').map((h) => h.version)).toEqual([1]);
    expect(first.memory.stat('/memories/n.md')).toBeUndefined();
  });

  it('a copy that would take the vault past its size limit is refused and changes nothing', async () => {
    const other = await new Projects(t.vault).create('Other');
    await t.vault.memory.writeFile('/memories/big.md', '0123456789', { mode: 'create', source: 'user' });
    const copy = transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/big.md', toProject: other.id, mode: 'copy', source: 'user', limits: { maxVaultBytes: 15 } });
    await expect(copy).rejects.toMatchObject({ code: 'LIMIT', message: expect.stringMatching(/^The memory was not copied: .*over its/) });
    expect((await new Projects(t.vault).memoryVault(other.id)).memory.list('/memories', Infinity)).toEqual([]);
  });

  it('refuses to overwrite a memory in the other project and changes nothing', async () => {
    const other = await new Projects(t.vault).create('Other');
    const [first, there] = [await new Projects(t.vault).memoryVault(FIRST_PROJECT_ID), await new Projects(t.vault).memoryVault(other.id)];
    await first.memory.writeFile('/memories/n.md', 'mine', { mode: 'create', source: 'user' });
    await there.memory.writeFile('/memories/n.md', 'theirs', { mode: 'create', source: 'user' });
    await expect(transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/n.md', toProject: other.id, mode: 'move', source: 'user' })).rejects.toMatchObject({ code: 'EXISTS' });
    expect(await first.memory.readFile('/memories/n.md')).toBe('mine');
    expect(await there.memory.readFile('/memories/n.md')).toBe('theirs');
  });
});
