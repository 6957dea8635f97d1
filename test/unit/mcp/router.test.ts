/** The router: the app when it answers, else the vault; back to the vault when the app goes; the app again when it comes. */
import { describe, expect, it } from 'vitest';
import type { MemoryBackend } from '../../../electron/core/mcp/backend';
import { createRouter } from '../../../electron/core/mcp/router';

interface Fake extends MemoryBackend {
  calls: unknown[];
  closed: boolean;
  gone(): void;
  changed(paths: string[]): void;
  watching?: boolean;
  failReads?: boolean;
  watch?(on: boolean): void;
}

function fake(kind: 'app' | 'vault'): Fake {
  const change = new Set<(p: string[]) => void>();
  const gone = new Set<() => void>();
  const f: Fake = {
    kind,
    calls: [],
    closed: false,
    async call(input) {
      f.calls.push(input);
      return { content: `${kind} answered`, is_error: false };
    },
    async list() {
      if (f.failReads) throw new Error('gone');
      return [{ path: `/memories/${kind}.md`, size: 1, modified: 1 }];
    },
    async read() {
      if (f.failReads) throw new Error('gone');
      return `${kind} text`;
    },
    onChange(l) {
      change.add(l);
      return () => change.delete(l);
    },
    onGone(l) {
      gone.add(l);
      return () => gone.delete(l);
    },
    async close() {
      f.closed = true;
    },
    gone: () => [...gone].forEach((l) => l()),
    changed: (p) => [...change].forEach((l) => l(p)),
  };
  return f;
}

function setup(appAnswers: () => Fake | undefined) {
  let clock = 0;
  const vault = Object.assign(fake('vault'), {
    watching: false,
    watch(on: boolean) {
      vault.watching = on;
    },
  });
  let opened = 0;
  let asked = 0;
  const router = createRouter({
    connectApp: async () => {
      asked++;
      return appAnswers();
    },
    openVault: async () => {
      opened++;
      return vault;
    },
    retryMs: 2000,
    now: () => clock,
  });
  return { router, vault, tick: (ms: number) => (clock += ms), opened: () => opened, asked: () => asked };
}

describe('the router', () => {
  it('serves from the app when it answers, without opening the vault', async () => {
    const app = fake('app');
    const s = setup(() => app);
    expect(await s.router.call({ command: 'view', path: '/memories' })).toEqual({ content: 'app answered', is_error: false });
    expect(s.router.kind).toBe('app');
    expect(await s.router.read('/memories/x.md')).toBe('app text');
    expect(s.opened()).toBe(0);
    expect(s.asked()).toBe(1);
  });

  it('serves from the vault when no app answers, and asks the app again only after the retry interval', async () => {
    const answers: { app?: Fake } = {};
    const s = setup(() => answers.app);
    expect((await s.router.call({})).content).toBe('vault answered');
    expect(s.router.kind).toBe('vault');
    await s.router.call({});
    expect(s.asked()).toBe(1);
    answers.app = fake('app');
    s.tick(1999);
    expect((await s.router.call({})).content).toBe('vault answered');
    s.tick(1);
    expect((await s.router.call({})).content).toBe('app answered');
    expect(s.asked()).toBe(2);
    expect(s.opened()).toBe(1);
  });

  it('goes to the vault for the next call once the app reports it is gone (locked or quit), and closes its end', async () => {
    const app = fake('app');
    const s = setup(() => app);
    await s.router.call({});
    app.gone();
    expect(app.closed).toBe(true);
    expect((await s.router.call({ n: 2 })).content).toBe('vault answered');
    expect(s.vault.calls).toEqual([{ n: 2 }]);
  });

  it('asks a read again of the vault when the app left while answering it, but never a call (it may have been applied)', async () => {
    const app = fake('app');
    const s = setup(() => app);
    await s.router.call({});
    app.failReads = true;
    const list = s.router.list();
    app.gone();
    expect(await list).toEqual([{ path: '/memories/vault.md', size: 1, modified: 1 }]);

    const app2 = fake('app');
    const t = setup(() => app2);
    app2.call = async () => {
      app2.gone();
      throw new Error('the app locked');
    };
    await expect(t.router.call({ n: 1 })).rejects.toThrow('the app locked');
    expect(t.vault.calls).toEqual([]);
  });

  it('passes on changes from the backend that serves, not from the one that does not', async () => {
    const answers: { app?: Fake } = {};
    const s = setup(() => answers.app);
    const seen: string[][] = [];
    s.router.onChange((p) => seen.push(p));
    await s.router.call({});
    s.vault.changed(['/memories/v.md']);
    const app = (answers.app = fake('app'));
    s.tick(5000);
    await s.router.call({});
    s.vault.changed(['/memories/ignored.md']);
    app.changed(['/memories/a.md']);
    app.gone();
    s.vault.changed(['/memories/v2.md']);
    expect(seen).toEqual([['/memories/v.md'], ['/memories/a.md']]);
    await s.router.call({});
    s.vault.changed(['/memories/v3.md']);
    expect(seen.at(-1)).toEqual(['/memories/v3.md']);
  });

  it('hands the watch setting to the vault backend, also when it opens later', async () => {
    const s = setup(() => undefined);
    s.router.watch(true);
    expect(s.vault.watching).toBe(false);
    await s.router.call({});
    expect(s.vault.watching).toBe(true);
    s.router.watch(false);
    await new Promise((r) => setImmediate(r));
    expect(s.vault.watching).toBe(false);
  });

  it('treats an app connection that throws as no app', async () => {
    const s = setup(() => {
      throw new Error('socket refused');
    });
    expect((await s.router.call({})).content).toBe('vault answered');
  });

  it('closes both backends on close', async () => {
    const app = fake('app');
    const answers: { app?: Fake } = {};
    const s = setup(() => answers.app);
    await s.router.call({});
    answers.app = app;
    s.tick(3000);
    await s.router.call({});
    await s.router.close();
    expect(app.closed).toBe(true);
    expect(s.vault.closed).toBe(true);
  });
});
