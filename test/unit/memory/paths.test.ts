/**
 * Path rules: every hostile path in the corpus is refused by every command
 * with a clear message, and nothing is created in the vault or on the host.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPathError, validateMemoryPath, validateMovedPaths } from '../../../electron/core/memory/paths';
import { hostTree, memoryTool, openTestVault, snapshotEntries, type TestVault } from './helpers';
import { ACCEPTED_PATHS, hostilePaths } from './hostile-paths';

let tv: TestVault;
let corpus: unknown[];
beforeAll(async () => {
  tv = await openTestVault();
  corpus = hostilePaths(tv.root);
});
afterAll(async () => {
  await tv.close();
});

const label = (p: unknown) => (typeof p === 'string' ? JSON.stringify(p).slice(0, 60) : String(JSON.stringify(p)));

/** What a clear refusal looks like: says something, names no host path, carries no OS error text. */
function expectClear(message: string, root: string): void {
  expect(message.length).toBeGreaterThan(20);
  expect(message.length).toBeLessThan(600);
  expect(message).not.toContain(root);
  expect(message).not.toMatch(/\bE[A-Z]{3,}\b|errno|syscall|\bat .+:\d+:\d+/);
}

describe('validateMemoryPath', () => {
  it('the corpus holds at least 200 distinct hostile paths', () => {
    expect(new Set(corpus.map((p) => JSON.stringify(p) ?? 'undefined')).size).toBeGreaterThanOrEqual(200);
  });

  it('refuses every hostile path with a MemoryPathError whose message is clear and holds no host path', () => {
    const accepted: string[] = [];
    for (const p of corpus) {
      let thrown: unknown;
      try {
        validateMemoryPath(p);
        accepted.push(label(p));
      } catch (e) {
        thrown = e;
      }
      if (thrown === undefined) continue;
      expect(thrown, label(p)).toBeInstanceOf(MemoryPathError);
      expectClear((thrown as Error).message, tv.root);
    }
    expect(accepted).toEqual([]);
  });

  it.each(ACCEPTED_PATHS.map(([p, c]) => [label(p), p, c]))('accepts %s in its canonical form', (_l, p, canonical) => {
    expect(validateMemoryPath(p)).toBe(canonical);
  });

  it('never echoes a control character back in its message', () => {
    for (let c = 0; c <= 0x1f; c++) {
      const ch = String.fromCharCode(c);
      expect(() => validateMemoryPath(`/memories/x${ch}`)).toThrow(MemoryPathError);
      try {
        validateMemoryPath(`/memories/x${ch}`);
      } catch (e) {
        expect((e as Error).message.includes(ch)).toBe(false);
      }
    }
  });
});

describe('every command refuses hostile paths and creates nothing', () => {
  it('create, view, str_replace, insert, delete and rename (either side) all answer with a clear error', async () => {
    const { run } = memoryTool(tv.vault);
    expect((await run({ command: 'create', path: '/memories/seed.md', file_text: 'seed\n' })).is_error).toBe(false);
    // Format 2 confirms a burst of writes with an `ack` record 50 ms later (sync-design §2.5): written now, before the
    // snapshot, so that it is not taken for something a refused command wrote. (Format 1: nothing to confirm.)
    await tv.vault.exclusive(async () => undefined, { confirmed: true });
    const entries = snapshotEntries(tv.vault);
    // The vault's device state (its rollback high-water mark) is written in the background; everything else must hold still.
    const host = async () =>
      (await hostTree(tv.root)).filter((p) => !p.startsWith('state/')).map((p) => (p.endsWith('/') ? p : `${p}:${fs.statSync(path.join(tv.root, p)).size}`));
    const hostBefore = await host();

    const calls = (p: unknown) => [
      { command: 'create', path: p, file_text: 'x' },
      { command: 'view', path: p },
      { command: 'str_replace', path: p, old_str: 'seed', new_str: 'changed' },
      { command: 'insert', path: p, insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: p },
      { command: 'rename', old_path: '/memories/seed.md', new_path: p },
      { command: 'rename', old_path: p, new_path: '/memories/moved.md' },
    ];
    let count = 0;
    for (const p of corpus) {
      for (const call of calls(p)) {
        const result = await run(call);
        expect(result.is_error, `${call.command} ${label(p)}`).toBe(true);
        expect(result.content.startsWith('Error: '), label(p)).toBe(true);
        expectClear(result.content, tv.root);
        count++;
      }
    }
    expect(count).toBeGreaterThanOrEqual(1400);

    expect(snapshotEntries(tv.vault)).toEqual(entries);
    expect(await tv.vault.memory.readFile('/memories/seed.md')).toBe('seed\n');
    expect(await host()).toEqual(hostBefore);
    expect(fs.existsSync(path.join(tv.root, 'escape.md'))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(tv.root), 'escape.md'))).toBe(false);
    expect(fs.existsSync('/tmp/mnemo-escape.md')).toBe(false);
  });
});

/** A path below /memories of exactly `bytes` UTF-8 bytes, made of `seg`-byte names of `ch` (1 or 3 bytes each). */
function pathOfBytes(bytes: number, ch = 'a', seg = 200): string {
  const unit = Buffer.byteLength(ch, 'utf8');
  let rest = bytes - '/memories'.length;
  const names: string[] = [];
  while (rest > 0) {
    const take = Math.min(seg + 1, rest); // "/" plus the name
    const nameBytes = take - 1;
    const name = ch.repeat(Math.floor(nameBytes / unit)) + 'x'.repeat(nameBytes % unit);
    names.push(name);
    rest -= take;
  }
  return '/memories/' + names.join('/');
}

describe('limits that let every memory export to Windows, macOS and Linux', () => {
  it('accepts a name of 255 UTF-8 bytes and refuses one of 256, counting bytes, not characters', () => {
    expect(validateMemoryPath('/memories/' + 'n'.repeat(255))).toBe('/memories/' + 'n'.repeat(255));
    expect(() => validateMemoryPath('/memories/' + 'n'.repeat(256))).toThrow(/name longer than 255 bytes/);
    const euro255 = '€'.repeat(85); // 3 bytes each
    expect(validateMemoryPath(`/memories/${euro255}`)).toBe(`/memories/${euro255}`);
    expect(() => validateMemoryPath(`/memories/${euro255}x`)).toThrow(/name longer than 255 bytes/);
  });

  it('refuses a name that grows past 255 characters when macOS decomposes it', () => {
    // U+01D5 is 2 bytes in NFC but 3 UTF-16 units in NFD, the form HFS+ stores: 127 of them fit in bytes, not on the disk.
    const name = '\u01d5'.repeat(127);
    expect(Buffer.byteLength(name, 'utf8')).toBe(254);
    expect(() => validateMemoryPath(`/memories/${name}`)).toThrow(MemoryPathError);
    expect(() => validateMemoryPath(`/memories/${name}`)).toThrow(/255/);
    expect(validateMemoryPath(`/memories/${'\u01d5'.repeat(85)}`)).toBe(`/memories/${'\u01d5'.repeat(85)}`);
  });

  it('accepts a whole path of 1,024 UTF-8 bytes and refuses one of 1,025', () => {
    expect(Buffer.byteLength(pathOfBytes(1024), 'utf8')).toBe(1024);
    expect(validateMemoryPath(pathOfBytes(1024))).toBe(pathOfBytes(1024));
    expect(() => validateMemoryPath(pathOfBytes(1025))).toThrow(/too long.*1,?024 bytes/);
  });

  it('counts the whole path in bytes, so 400 three-byte characters are too long though they are 400 characters', () => {
    const p = pathOfBytes(1210, '€', 240);
    expect(p.length).toBeLessThan(1024);
    expect(() => validateMemoryPath(p)).toThrow(/too long/);
    const ok = pathOfBytes(1024, '€', 240);
    expect(Buffer.byteLength(ok, 'utf8')).toBe(1024);
    expect(validateMemoryPath(ok)).toBe(ok);
  });

  it('accepts a path 32 names deep below /memories and refuses 33', () => {
    const deep = (n: number) => '/memories/' + Array.from({ length: n }, (_, i) => `d${i}`).join('/');
    expect(validateMemoryPath(deep(32))).toBe(deep(32));
    expect(validateMemoryPath(deep(32) + '/')).toBe(deep(32));
    expect(() => validateMemoryPath(deep(33))).toThrow(/too deep.*32/);
    expect(() => validateMemoryPath('/memories/' + 'a/'.repeat(300) + 'x.md')).toThrow(/too deep/);
  });

  it('says how to fix each limit and never repeats the path', () => {
    for (const p of ['/memories/' + 'n'.repeat(256), pathOfBytes(1025), '/memories/' + 'a/'.repeat(40) + 'x']) {
      let message = '';
      try {
        validateMemoryPath(p);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/shorter|fewer/);
      expect(message).not.toContain('nnnnnnnn');
      expect(message).not.toContain('a/a/a/');
    }
  });
});

describe('validateMovedPaths', () => {
  const chain = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `d${from + i}`).join('/');
  it('refuses moving a folder deeper when its contents would pass 32 names, and allows the same move when they fit', () => {
    const inside = [`/memories/top/${chain(25)}/note.md`]; // 27 names
    expect(() => validateMovedPaths('/memories/top', `/memories/${chain(10, 100)}/top`, inside)).toThrow(/Cannot move \/memories\/top to .*too deep/);
    expect(() => validateMovedPaths('/memories/top', `/memories/${chain(5, 100)}/top`, inside)).not.toThrow();
  });

  it('refuses a move that makes an inner path longer than 1,024 bytes, and ignores paths outside the folder', () => {
    const name = 'n'.repeat(200);
    const inside = [`/memories/top/${name}/${name}/${name}/${name}.md`];
    expect(() => validateMovedPaths('/memories/top', `/memories/${'m'.repeat(250)}/top`, inside)).toThrow(/too long/);
    expect(() => validateMovedPaths('/memories/other', `/memories/${name}/other`, inside)).not.toThrow();
  });
});

describe('moving a folder through the memory tool and the window', () => {
  const chain = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`).join('/');

  it('the rename command refuses to push a folder past 32 names deep and leaves the folder where it was', async () => {
    const { handlers } = memoryTool(tv.vault);
    await handlers.create({ command: 'create', path: `/memories/moving/${chain(25)}/note.md`, file_text: 'deep' });
    const before = snapshotEntries(tv.vault);
    await expect(handlers.rename({ command: 'rename', old_path: '/memories/moving', new_path: `/memories/${chain(10)}/moving` })).rejects.toThrow(/Cannot move \/memories\/moving to .*too deep/);
    expect(snapshotEntries(tv.vault)).toEqual(before);
  });

  it('the window\'s rename refuses the same move and changes nothing', async () => {
    const { createHandlers, dispatch } = await import('../../../electron/main/handlers');
    const root = fs.mkdtempSync(path.join(tv.root, 'app-'));
    const made = createHandlers({ userDataDir: root, stateDir: path.join(root, 'state'), env: {}, kdf: { opslimit: 2, memlimit: 64 * 1024 * 1024 }, pickDirectory: async () => undefined, emit: () => undefined });
    expect((await dispatch(made.handlers, 'vaultCreate', [{ passphrase: 'amber-kettle-orbit-sonnet-42' }])).ok).toBe(true);
    const deep = `/memories/moving/${chain(25)}/note.md`;
    expect((await dispatch(made.handlers, 'memoryWrite', [{ path: deep, text: 'deep', mode: 'create' }])).ok).toBe(true);
    const moved = await dispatch(made.handlers, 'memoryRename', [{ from: '/memories/moving', to: `/memories/${chain(10)}/moving` }]);
    expect(moved).toMatchObject({ ok: false, error: { message: expect.stringMatching(/too deep/) } });
    const list = await dispatch(made.handlers, 'memoryList', []);
    expect(list.ok && (list.value as Array<{ path: string }>).some((e) => e.path === deep)).toBe(true);
    await made.session.close();
  });
});
