/**
 * The memory handlers beyond the reference's strings: concurrent calls of one
 * turn, what the UI observes, who the vault records as author, how vault
 * failures reach Claude, and how malformed input is answered.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sharedFixture } from '../fixture';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { createMemoryHandlers, type MemoryObservation } from '../../../electron/core/memory/handlers';
import { runMemoryCommand } from '../../../electron/core/memory/run';
import { VaultError, type VaultChange } from '../../../electron/core/vault/types';
import { faultyVault, type Faults } from './fake-vault';
import { memoryTool, openTestVault, snapshotEntries } from './helpers';

const tv = sharedFixture(openTestVault, (f) => f.clear());

const err = (message: string) => ({ content: `Error: ${message}`, is_error: true });

describe('concurrent calls', () => {
  it('three parallel str_replace calls on one file all land', async () => {
    const { run } = memoryTool(tv().vault);
    await run({ command: 'create', path: '/memories/p.md', file_text: 'one\ntwo\nthree\n' });
    const results = await Promise.all(
      ['one', 'two', 'three'].map((w) => run({ command: 'str_replace', path: '/memories/p.md', old_str: w, new_str: w.toUpperCase() })),
    );
    expect(results.map((r) => r.is_error)).toEqual([false, false, false]);
    expect(await tv().vault.memory.readFile('/memories/p.md')).toBe('ONE\nTWO\nTHREE\n');
    expect(tv().vault.memory.stat('/memories/p.md')).toMatchObject({ version: 4 });
  });

  it('twenty parallel inserts at the top all land, none lost', async () => {
    const { run } = memoryTool(tv().vault);
    await run({ command: 'create', path: '/memories/log.md', file_text: 'end' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => run({ command: 'insert', path: '/memories/log.md', insert_line: 0, insert_text: `entry ${i}` })));
    const lines = (await tv().vault.memory.readFile('/memories/log.md')).split('\n');
    expect(lines).toHaveLength(21);
    expect(new Set(lines.slice(0, 20))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `entry ${i}`)));
  });

  it('a create and a rename racing for one path: exactly one wins, the other gets a clear error', async () => {
    const { run } = memoryTool(tv().vault);
    await run({ command: 'create', path: '/memories/src.md', file_text: 'moved' });
    const [created, renamed] = await Promise.all([
      run({ command: 'create', path: '/memories/dst.md', file_text: 'created' }),
      run({ command: 'rename', old_path: '/memories/src.md', new_path: '/memories/dst.md' }),
    ]);
    expect([created.is_error, renamed.is_error].sort()).toEqual([false, true]);
    expect(renamed.is_error ? renamed.content : created.content).toMatch(/^Error: (The destination \/memories\/dst\.md already exists|File \/memories\/dst\.md already exists)$/);
  });
});

describe('observation and authorship', () => {
  it('reports each successful command with the text before and after', async () => {
    const seen: MemoryObservation[] = [];
    const { run } = memoryTool(tv().vault, { observe: (e) => seen.push(e) });
    await run({ command: 'create', path: '/memories/o.md', file_text: 'a\n' });
    await run({ command: 'str_replace', path: '/memories/o.md', old_str: 'a', new_str: 'b' });
    await run({ command: 'insert', path: '/memories/o.md', insert_line: 0, insert_text: 'top' });
    await run({ command: 'view', path: '/memories/o.md' });
    await run({ command: 'rename', old_path: '/memories/o.md', new_path: '/memories/d/o.md' });
    await run({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' });
    await run({ command: 'delete', path: '/memories/e/o.md' });
    await run({ command: 'delete', path: '/memories/e' });
    await run({ command: 'delete', path: '/memories/e' });
    expect(seen).toEqual([
      { command: 'create', path: '/memories/o.md', after: 'a\n' },
      { command: 'str_replace', path: '/memories/o.md', before: 'a\n', after: 'b\n' },
      { command: 'insert', path: '/memories/o.md', before: 'b\n', after: 'top\nb\n' },
      { command: 'view', path: '/memories/o.md' },
      { command: 'rename', path: '/memories/o.md', newPath: '/memories/d/o.md', before: 'top\nb\n', after: 'top\nb\n' },
      { command: 'rename', path: '/memories/d', newPath: '/memories/e' },
      { command: 'delete', path: '/memories/e/o.md', before: 'top\nb\n' },
      { command: 'delete', path: '/memories/e' },
    ]);
  });

  it('an observer that throws does not turn a committed change into an error', async () => {
    const { run } = memoryTool(tv().vault, {
      observe: () => {
        throw new Error('window closed');
      },
    });
    expect(await run({ command: 'create', path: '/memories/x.md', file_text: 'x' })).toEqual({ content: 'File created successfully at: /memories/x.md', is_error: false });
  });

  it("records changes as Claude's by default and as the given source otherwise", async () => {
    const changes: VaultChange[] = [];
    const off = tv().vault.onChange((c) => changes.push(c));
    await memoryTool(tv().vault).run({ command: 'create', path: '/memories/c.md', file_text: 'x' });
    await memoryTool(tv().vault, { source: 'cli' }).run({ command: 'delete', path: '/memories/c.md' });
    off();
    expect(changes).toEqual([
      { op: 'write', path: '/memories/c.md', version: 1, source: 'claude', created: true },
      { op: 'delete', path: '/memories/c.md', source: 'cli' },
    ]);
  });
});

describe('vault failures reach Claude as clear messages', () => {
  const faults: Faults = { damaged: new Set() };
  const faulty = () => memoryTool(faultyVault(tv().vault, faults)).run;
  beforeEach(() => {
    faults.damaged.clear();
    delete faults.refuse;
    delete faults.writeError;
  });

  it('a damaged memory is named and cannot be viewed or edited, but can be renamed and deleted', async () => {
    await memoryTool(tv().vault).run({ command: 'create', path: '/memories/bad.md', file_text: 'x' });
    faults.damaged.add('/memories/bad.md');
    const run = faulty();
    const damaged = err(
      'The memory /memories/bad.md is damaged: its stored content failed the vault\'s integrity check, so it cannot be read or edited. ' +
        'Tell the user; they can restore an earlier version in Mnemo. You may delete it or create a replacement at another path.',
    );
    expect(await run({ command: 'view', path: '/memories/bad.md' })).toEqual(damaged);
    expect(await run({ command: 'str_replace', path: '/memories/bad.md', old_str: 'x', new_str: 'y' })).toEqual(damaged);
    expect(await run({ command: 'insert', path: '/memories/bad.md', insert_line: 0, insert_text: 'y' })).toEqual(damaged);
    expect(await run({ command: 'view', path: '/memories' })).toMatchObject({ is_error: false });
    expect(await run({ command: 'rename', old_path: '/memories/bad.md', new_path: '/memories/bad2.md' })).toMatchObject({ is_error: false });
    faults.damaged.add('/memories/bad2.md');
    expect(await run({ command: 'delete', path: '/memories/bad2.md' })).toEqual({ content: 'Successfully deleted /memories/bad2.md', is_error: false });
  });

  it('a locked vault asks Claude to have the user unlock', async () => {
    await memoryTool(tv().vault).run({ command: 'create', path: '/memories/l.md', file_text: 'x' });
    tv().vault.lock();
    try {
      const { run } = memoryTool(tv().vault);
      const locked = err('The memory vault is locked, so memory cannot be used right now. Ask the user to unlock Mnemo, then try again.');
      expect(await run({ command: 'view', path: '/memories' })).toEqual(locked);
      expect(await run({ command: 'create', path: '/memories/m.md', file_text: 'x' })).toEqual(locked);
    } finally {
      await tv().vault.unlock('pass phrase');
    }
    expect(snapshotEntries(tv().vault).map((e) => e.path)).toEqual(['/memories/l.md']);
  });

  it('a storage error is reported without its OS text or host path', async () => {
    faults.writeError = new VaultError('IO', 'EACCES: permission denied, open /home/someone/.config/Mnemo/vault/segments/x');
    const result = await faulty()({ command: 'create', path: '/memories/io.md', file_text: 'x' });
    expect(result).toEqual(err('The create command could not be completed because the memory vault could not be read or written. Try again; if it keeps failing, tell the user.'));
  });

  it('an unexpected error is replaced by a generic message, never its own text', async () => {
    faults.writeError = new Error("ENOSPC: no space left on device, write '/home/someone/secret-project/notes'");
    const result = await faulty()({ command: 'create', path: '/memories/io.md', file_text: 'x' });
    expect(result).toEqual(err('The create command failed because of an unexpected problem in the memory store. Nothing more is known; try again.'));
  });

  it('any other vault refusal names its code and nothing else', async () => {
    faults.refuse = 'ROLLED_BACK';
    const result = await faulty()({ command: 'view', path: '/memories' });
    expect(result).toEqual(err('The view command could not be completed: the memory vault refused it (ROLLED_BACK). Tell the user.'));
  });
});

describe('malformed input', () => {
  it.each([
    [null, 'The memory tool input must be an object with a `command` field.'],
    ['view /memories', 'The memory tool input must be an object with a `command` field.'],
    [{ path: '/memories' }, 'The memory tool input has no `command`; use one of view, create, str_replace, insert, delete, rename.'],
    [{ command: 'list', path: '/memories' }, 'Unknown memory command "list"; use one of view, create, str_replace, insert, delete, rename.'],
    [{ command: 7 }, 'Unknown memory command of type number; use one of view, create, str_replace, insert, delete, rename.'],
    [{ command: 'view' }, "Invalid input for the memory tool's view command: `path` is required."],
    [{ command: 'view', path: 5 }, "Invalid input for the memory tool's view command: `path` must be a string."],
    [{ command: 'create', path: '/memories/a.md' }, "Invalid input for the memory tool's create command: `file_text` is required."],
    [{ command: 'str_replace', path: '/memories/a.md', new_str: 'x' }, "Invalid input for the memory tool's str_replace command: `old_str` is required."],
    [{ command: 'str_replace', path: '/memories/a.md', old_str: 'x', new_str: 3 }, "Invalid input for the memory tool's str_replace command: `new_str` must be a string."],
    [{ command: 'insert', path: '/memories/a.md', insert_line: '1', insert_text: 'x' }, "Invalid input for the memory tool's insert command: `insert_line` must be an integer."],
    [{ command: 'insert', path: '/memories/a.md', insert_text: 'x' }, "Invalid input for the memory tool's insert command: `insert_line` is required."],
    [{ command: 'rename', old_path: '/memories/a.md' }, "Invalid input for the memory tool's rename command: `new_path` is required."],
    [{ command: 'delete', path: ['/memories/a.md'] }, "Invalid input for the memory tool's delete command: `path` must be a string."],
  ])('%j is answered with a clear error', async (input, message) => {
    expect(await memoryTool(tv().vault).run(input)).toEqual(err(message));
  });

  it('a non-integer insert_line gets the reference insert_line error', async () => {
    const { run } = memoryTool(tv().vault);
    await run({ command: 'create', path: '/memories/a.md', file_text: 'a\nb' });
    expect(await run({ command: 'insert', path: '/memories/a.md', insert_line: 1.5, insert_text: 'x' })).toEqual(
      err('Invalid `insert_line` parameter: 1.5. It should be within the range of lines of the file: [0, 2]'),
    );
  });

  it('handlers called directly by the SDK runner check their input too', async () => {
    const handlers = createMemoryHandlers(tv().vault, { guardMode: () => 'allow' });
    const unchecked = { command: 'create', path: '/memories/a.md' } as unknown as Parameters<MemoryToolHandlers['create']>[0];
    await expect(handlers.create(unchecked)).rejects.toThrow("Invalid input for the memory tool's create command: `file_text` is required.");
    const noNewStr = { command: 'str_replace', path: '/memories/a.md', old_str: 'x' } as unknown as Parameters<MemoryToolHandlers['str_replace']>[0];
    await expect(handlers.str_replace(noNewStr)).rejects.toThrow('The path /memories/a.md does not exist. Please provide a valid path.');
  });
});

describe('runMemoryCommand', () => {
  const stub = (fn: () => unknown): MemoryToolHandlers => {
    const h = memoryTool(tv().vault).handlers;
    return { ...h, view: fn as MemoryToolHandlers['view'] };
  };

  it('answers a ToolError with its own content and a thrown non-Error with its string, as the SDK runner does', async () => {
    const view = { command: 'view', path: '/memories' };
    expect(await runMemoryCommand(stub(() => { throw new ToolError('custom text'); }), view)).toEqual({ content: 'custom text', is_error: true });
    expect(await runMemoryCommand(stub(() => { throw new ToolError([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]); }), view)).toEqual({ content: 'a b', is_error: true });
    expect(await runMemoryCommand(stub(() => Promise.reject('plain')), view)).toEqual({ content: 'Error: plain', is_error: true });
    expect(await runMemoryCommand(stub(() => [{ type: 'text', text: 'x' }]), view)).toEqual({ content: 'x', is_error: false });
  });
});

describe('a memory damaged on disk', () => {
  it('is reported by name when its stored bytes were altered, and can still be deleted', async () => {
    // Format 1: the damage is made in its `segments/` files (format 2 keeps its blobs in per-device folders).
    const own = await openTestVault({ format2: false });
    try {
      const { run } = memoryTool(own.vault);
      await run({ command: 'create', path: '/memories/big.md', file_text: 'remember this\n'.repeat(4000) });
      // Flip one byte in every 1 KiB of the vault's segment files: the 56 KB blob cannot escape it.
      const segments = path.join(own.root, 'vault', 'segments');
      for (const name of await fs.readdir(segments)) {
        const fh = await fs.open(path.join(segments, name), 'r+');
        const { size } = await fh.stat();
        for (let off = 512; off < size; off += 1024) {
          const b = Buffer.alloc(1);
          await fh.read(b, 0, 1, off);
          b[0] = (b[0] ?? 0) ^ 0xff;
          await fh.write(b, 0, 1, off);
        }
        await fh.close();
      }
      const viewed = await run({ command: 'view', path: '/memories/big.md' });
      expect(viewed.is_error).toBe(true);
      expect(viewed.content).toMatch(/^Error: The memory \/memories\/big\.md is damaged: /);
      expect(viewed.content).not.toContain(own.root);
      expect(await run({ command: 'delete', path: '/memories/big.md' })).toEqual({ content: 'Successfully deleted /memories/big.md', is_error: false });
    } finally {
      await own.close();
    }
  });
});
