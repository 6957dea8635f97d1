/**
 * Hostile use of projects: writes and moves aimed at a project's own
 * `/memories`, error messages of moves between projects, look-alike project
 * names, and the names deleted projects come back with.
 */
import { describe, expect, it } from 'vitest';
import { transferMemory } from '../../../electron/core/projects/move';
import { FIRST_PROJECT_ID, MAX_PROJECT_NAME, Projects, validateProjectName } from '../../../electron/core/projects/store';
import type { TempVault } from '../vault/helpers';
import { eachWithTempVault, tool } from './helpers';

let t: TempVault;
eachWithTempVault((v) => (t = v));
const scoped = (id: string) => new Projects(t.vault).memoryVault(id);

/** The project still works: a file can be created and listed in its /memories. */
async function stillUsable(id: string): Promise<void> {
  const run = tool(await scoped(id));
  const made = await run({ command: 'create', path: '/memories/after.md', file_text: 'fine' });
  expect(made.is_error).not.toBe(true);
  expect((await scoped(id)).memory.list('/memories', Infinity).map((e) => e.path)).toContain('/memories/after.md');
}

describe("a project's /memories stays a folder", () => {
  it('writing a file at /memories of a project with no memories yet is refused, and the project keeps working', async () => {
    const fresh = await new Projects(t.vault).create('Fresh');
    const vault = await scoped(fresh.id);
    await expect(vault.memory.writeFile('/memories', 'x', { mode: 'create', source: 'user' })).rejects.toMatchObject({ code: 'NOT_A_FILE' });
    expect(vault.memory.stat('/memories')?.kind ?? 'dir').toBe('dir');
    await stillUsable(fresh.id);
  });

  it('moving or copying a memory onto /memories of a project with no memories yet is refused, and both projects are unchanged', async () => {
    const fresh = await new Projects(t.vault).create('Fresh');
    await t.vault.memory.writeFile('/memories/n.md', 'note', { mode: 'create', source: 'user' });
    for (const mode of ['move', 'copy'] as const) {
      const move = transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/n.md', toProject: fresh.id, toPath: '/memories', mode, source: 'user' });
      await expect(move).rejects.toMatchObject({ code: 'INVALID', message: expect.stringMatching(/memory folder itself/) });
    }
    expect(await t.vault.memory.readFile('/memories/n.md')).toBe('note');
    await stillUsable(fresh.id);
  });
});

describe('moving a memory between projects', () => {
  it('an error about the destination names its path as that project sees it, never the internal folder or an id', async () => {
    const [a, b] = [await new Projects(t.vault).create('A'), await new Projects(t.vault).create('B')];
    await (await scoped(a.id)).memory.writeFile('/memories/n.md', 'note', { mode: 'create', source: 'user' });
    await (await scoped(b.id)).memory.writeFile('/memories/notes', 'a file, not a folder', { mode: 'create', source: 'user' });
    for (const mode of ['move', 'copy'] as const) {
      const err = await transferMemory(t.vault, { fromProject: a.id, path: '/memories/n.md', toProject: b.id, toPath: '/memories/notes/n.md', mode, source: 'user' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'NOT_A_DIRECTORY', subject: '/memories/notes' });
      expect((err as Error).message).not.toMatch(/mnemo-projects|[0-9a-f]{16}/);
      expect((err as Error).message).toContain('/memories/notes');
    }
    expect(await (await scoped(a.id)).memory.readFile('/memories/n.md')).toBe('note');
  });
});

describe('project names', () => {
  it('a name with an invisible character (zero-width, direction mark, BOM, soft hyphen) is refused, so no two projects read the same', async () => {
    const projects = new Projects(t.vault);
    await projects.create('Work');
    for (const ch of ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u061c', '\u2060', '\ufeff', '\u00ad', '\u180e']) {
      await expect(projects.create(`Wo${ch}rk`)).rejects.toMatchObject({ code: 'INVALID' });
    }
    expect((await projects.list()).map((p) => p.name)).toEqual(['Default', 'Work']);
  });

  it('a restored project whose name was taken gets a valid name of at most 100 characters that starts as the old one did', async () => {
    const projects = new Projects(t.vault);
    const long = `${'😀'.repeat(MAX_PROJECT_NAME - 1)}a`;
    const gone = await projects.create(long);
    await projects.delete(gone.id);
    await projects.create(long);
    const back = await projects.restore(gone.id);
    expect(validateProjectName(back.name)).toBe(back.name);
    // Well-formed UTF-16: survives a round trip through UTF-8 (an unpaired surrogate would come back as U+FFFD).
    expect(Buffer.from(back.name, 'utf8').toString('utf8')).toBe(back.name);
    expect([...back.name].length).toBeLessThanOrEqual(MAX_PROJECT_NAME);
    expect(back.name.startsWith('😀😀')).toBe(true);
    expect(back.name.endsWith(' (2)')).toBe(true);
  });
});

describe("moving a memory onto a deleted one's path in another project", () => {
  it("is refused, and the other project's deleted memory stays in its trash with every version", async () => {
    const other = await new Projects(t.vault).create('Other');
    const there = await scoped(other.id);
    await there.memory.writeFile('/memories/n.md', 'old 1', { mode: 'create', source: 'user' });
    await there.memory.writeFile('/memories/n.md', 'old 2', { mode: 'update', source: 'user' });
    await there.memory.remove('/memories/n.md', 'user');
    await t.vault.memory.writeFile('/memories/n.md', 'new', { mode: 'create', source: 'user' });
    const move = transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/n.md', toProject: other.id, mode: 'move', source: 'user' });
    await expect(move).rejects.toMatchObject({ code: 'EXISTS', message: expect.stringMatching(/trash/) });
    const trashed = t.vault.trash().filter((e) => e.path.endsWith(`${other.id}/memories/n.md`) || e.path.endsWith(`${other.id}/n.md`));
    expect(trashed.map((e) => e.versions.map((v) => v.version))).toEqual([[1, 2]]);
    expect(await there.readVersion('/memories/n.md', 1)).toBe('old 1');
    expect(await t.vault.memory.readFile('/memories/n.md')).toBe('new');
  });
});

describe('moving a memory while its destination project is being deleted', () => {
  it('finds the project gone and moves nothing, rather than writing into a deleted project', async () => {
    const projects = new Projects(t.vault);
    const gone = await projects.create('Gone');
    await t.vault.memory.writeFile('/memories/n.md', 'note', { mode: 'create', source: 'user' });
    // Hold the vault's queue, so the deletion and the move wait in it in a known order: the deletion first.
    let release!: () => void;
    const held = t.vault.exclusive(() => new Promise<void>((r) => (release = r)));
    let deletionQueued!: () => void;
    const queued = new Promise<void>((r) => (deletionQueued = r));
    const watched = new Proxy(t.vault, {
      get(target, prop) {
        if (prop !== 'internal') return Reflect.get(target, prop, target) as unknown;
        const internal = target.internal;
        return { ...internal, getJSON: internal.getJSON.bind(internal), putJSON: (k: string, v: unknown) => {
          const put = internal.putJSON(k, v);
          deletionQueued();
          return put;
        } };
      },
    });
    const deletion = new Projects(watched).delete(gone.id);
    await queued;
    const move = transferMemory(t.vault, { fromProject: FIRST_PROJECT_ID, path: '/memories/n.md', toProject: gone.id, mode: 'move', source: 'user' }).catch((e: unknown) => e);
    // Let the move resolve both projects (the deletion is not committed yet) and queue behind it.
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    release();
    await held;
    await deletion;
    expect(await move).toMatchObject({ code: 'NOT_FOUND' });
    expect(await t.vault.memory.readFile('/memories/n.md')).toBe('note');
    expect(t.vault.memory.stat(`/memories/.mnemo-projects/${gone.id}/n.md`)).toBeUndefined();
  });
});
