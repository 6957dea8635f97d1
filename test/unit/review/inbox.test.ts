/**
 * The review inbox: what Claude changed since the user last looked, per
 * project, marked reviewed exactly at the version the user saw.
 */
import { describe, expect, it } from 'vitest';
import { ReviewInbox } from '../../../electron/core/review/inbox';
import { FIRST_PROJECT_ID, Projects } from '../../../electron/core/projects/store';
import { PASS } from '../vault/helpers';
import { claude, useTempVault, user } from './helpers';

const t = useTempVault();

const inbox = () => new ReviewInbox(t.vault);
const listed = async (project?: string) => (await inbox().list(project)).map((e) => `${e.path} ${e.kind} v${e.version}${e.reviewedVersion ? ` from v${e.reviewedVersion}` : ''} ${e.by.kind}`);

describe('what waits for review', () => {
  it('on first use everything Claude wrote is to review and the user\'s own memories are not', async () => {
    await user(t.vault, '/memories/mine.md', 'mine');
    await claude(t.vault, '/memories/a.md', 'a');
    await user(t.vault, '/memories/b.md', 'b1');
    await claude(t.vault, '/memories/b.md', 'b2');
    expect(await listed()).toEqual(['/memories/a.md new v1 claude', '/memories/b.md changed v2 from v1 claude']);
  });

  it('marking a version reviews exactly that version: a change landing between looking and clicking stays to review', async () => {
    await claude(t.vault, '/memories/a.md', 'one');
    const seen = (await inbox().list())[0]!;
    await claude(t.vault, '/memories/a.md', 'two');
    expect(await inbox().mark(FIRST_PROJECT_ID, [{ path: seen.path, version: seen.version }])).toBe(1);
    expect(await listed()).toEqual(['/memories/a.md changed v2 from v1 claude']);
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 2 }]);
    expect(await listed()).toEqual([]);
  });

  it('a write by Claude after the review puts the file back, diffed from the reviewed version', async () => {
    await claude(t.vault, '/memories/a.md', 'one');
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 1 }]);
    expect(await listed()).toEqual([]);
    await claude(t.vault, '/memories/a.md', 'two');
    expect(await listed()).toEqual(['/memories/a.md changed v2 from v1 claude']);
  });

  it('the user\'s own save counts as reviewed, and a later Claude change diffs from that save', async () => {
    await claude(t.vault, '/memories/a.md', 'one');
    await user(t.vault, '/memories/a.md', 'edited by me');
    expect(await listed()).toEqual([]);
    await claude(t.vault, '/memories/a.md', 'three');
    expect(await listed()).toEqual(['/memories/a.md changed v3 from v2 claude']);
  });

  it('a memory Claude deleted is listed as deleted until marked; one the user deleted is not', async () => {
    await claude(t.vault, '/memories/a.md', 'a');
    await user(t.vault, '/memories/b.md', 'b');
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 1 }]);
    await t.vault.memory.remove('/memories/a.md', 'claude', { kind: 'claude', conversationId: 'c1', turn: 2 });
    await t.vault.memory.remove('/memories/b.md', 'user');
    expect(await listed()).toEqual(['/memories/a.md deleted v1 claude']);
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 1 }]);
    expect(await listed()).toEqual([]);
  });

  it('a file Claude renamed is to review at its new path, even one the user wrote', async () => {
    const stop = inbox().track();
    await user(t.vault, '/memories/mine.md', 'mine');
    await claude(t.vault, '/memories/c.md', 'c');
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/c.md', version: 1 }]);
    await t.vault.memory.rename('/memories/mine.md', '/memories/moved.md', 'claude');
    await t.vault.memory.rename('/memories/c.md', '/memories/d/c.md', 'claude');
    const entries = await inbox().list();
    expect(entries.map((e) => [e.path, e.kind, e.from])).toEqual([
      ['/memories/d/c.md', 'new', '/memories/c.md'],
      ['/memories/moved.md', 'new', '/memories/mine.md'],
    ]);
    await inbox().mark(FIRST_PROJECT_ID, entries.map((e) => ({ path: e.path, version: e.version })));
    expect(await listed()).toEqual([]);
    stop();
  });

  it('a file the user renamed keeps being reviewed', async () => {
    const stop = inbox().track();
    await claude(t.vault, '/memories/c.md', 'c');
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/c.md', version: 1 }]);
    await t.vault.memory.rename('/memories/c.md', '/memories/e.md', 'user');
    expect(await listed()).toEqual([]);
    stop();
  });

  it('projects are reviewed apart: marking in one leaves the other as it was', async () => {
    const work = await new Projects(t.vault).create('Work');
    const workVault = await new Projects(t.vault).memoryVault(work.id);
    await claude(t.vault, '/memories/a.md', 'default');
    await claude(workVault, '/memories/a.md', 'work');
    expect(await inbox().counts()).toEqual({ [FIRST_PROJECT_ID]: 1, [work.id]: 1 });
    await inbox().mark(work.id, [{ path: '/memories/a.md', version: 1 }]);
    expect(await inbox().counts()).toEqual({ [FIRST_PROJECT_ID]: 1, [work.id]: 0 });
    expect(await listed(work.id)).toEqual([]);
    expect(await listed()).toEqual(['/memories/a.md new v1 claude']);
  });

  it('marks survive closing, reopening and a lock, and are stored encrypted in the vault', async () => {
    await claude(t.vault, '/memories/a.md', 'a');
    await claude(t.vault, '/memories/b.md', 'b');
    await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 1 }]);
    await t.reopen();
    expect(await listed()).toEqual(['/memories/b.md new v1 claude']);
    t.vault.lock();
    await expect(inbox().list()).rejects.toMatchObject({ code: 'LOCKED' });
    await t.vault.unlock(PASS);
    expect(await listed()).toEqual(['/memories/b.md new v1 claude']);
    // Format 1 keeps a project's marks in one value; format 2 one per computer (`review/<project>/<device>`), as
    // two computers would both rewrite it.
    const device = await t.vault.internal.device?.(false);
    expect(t.vault.internal.keys('review/')).toEqual([device ? `review/${FIRST_PROJECT_ID}/${device}` : `review/${FIRST_PROJECT_ID}`]);
  });

  it('marking a version the memory never had marks nothing', async () => {
    await claude(t.vault, '/memories/a.md', 'a');
    expect(await inbox().mark(FIRST_PROJECT_ID, [{ path: '/memories/a.md', version: 7 }, { path: '/memories/none.md', version: 1 }])).toBe(0);
    expect(await listed()).toEqual(['/memories/a.md new v1 claude']);
  });
});

describe('the cost of listing', () => {
  it('listing 10,000 memories reads the version lists of the few to review only, and decrypts no memory', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ path: `/memories/d${i % 50}/m${i}.md`, text: `memory ${i}` }));
    await t.vault.importFiles(items, { overwrite: false, source: 'user', maxFileBytes: 1 << 20, maxTotalBytes: 1 << 30 });
    await claude(t.vault, '/memories/d1/m1.md', 'changed');
    await claude(t.vault, '/memories/d2/m2.md', 'changed');
    await claude(t.vault, '/memories/new.md', 'new');
    const calls = { versions: 0, readVersion: 0, readFile: 0, history: 0 };
    const real = t.vault;
    const counted = new Proxy(real, {
      get(target, prop) {
        if (prop === 'memory') return new Proxy(target.memory, { get: (m, k) => (k === 'readFile' ? (calls.readFile++, m.readFile) : Reflect.get(m, k)) });
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        return (...a: unknown[]) => {
          if (prop in calls) calls[prop as keyof typeof calls]++;
          return (value as (...x: unknown[]) => unknown).apply(target, a);
        };
      },
    });
    const entries = await new ReviewInbox(counted).list();
    expect(entries.map((e) => `${e.path} ${e.kind}`)).toEqual(['/memories/d1/m1.md changed', '/memories/d2/m2.md changed', '/memories/new.md new']);
    // Two changed files need their version lists for the diff's base; the new first version needs none.
    expect(calls).toEqual({ versions: 2, readVersion: 0, readFile: 0, history: 0 });
    calls.versions = 0;
    expect(await new ReviewInbox(counted).counts()).toEqual({ [FIRST_PROJECT_ID]: 3 });
    expect(calls).toEqual({ versions: 0, readVersion: 0, readFile: 0, history: 0 });
  }, 120_000);
});
