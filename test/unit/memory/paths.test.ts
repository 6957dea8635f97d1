/**
 * Path rules: every hostile path in the corpus is refused by every command
 * with a clear message, and nothing is created in the vault or on the host.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPathError, validateMemoryPath } from '../../../electron/core/memory/paths';
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
