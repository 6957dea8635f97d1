/**
 * Following a vault's folder while it is open (core sync/follow.ts): the memory changes an ingest makes visible are
 * told as changes, and the watcher reads after each burst of file changes and on its poll, never twice at once.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it, vi } from 'vitest';
import { watchFolder } from '../../../electron/core/vault/sync/follow';
import type { VaultChange } from '../../../electron/core/vault/types';
import { Vault } from '../../../electron/core/vault/vault';
import { vaultRoom, type Computer } from './carry-vaults';

const { room, computers } = vaultRoom('follow');

it('an ingest tells of each memory another computer wrote, changed or deleted, once', async () => {
  const [a] = (await computers(1)) as [Computer];
  await a.v.setHistoryDepth(20);
  // The other computer: the same folder, its own state folder.
  const b = await Vault.open(a.dir, { stateDir: path.join(room.root, 'other'), format2: true, ackDelayMs: 0 });
  try {
    await b.unlockWithRecoveryKey(room.recovery);
    const heard: VaultChange[] = [];
    const off = a.v.onChange((c) => heard.push(c));
    await b.memory.writeFile('/memories/new.md', 'one', { mode: 'create', source: 'user' });
    await a.v.ingest();
    expect(heard).toEqual([{ op: 'write', path: '/memories/new.md', version: 1, source: 'system', created: true }]);
    heard.length = 0;
    await a.v.ingest();
    expect(heard).toEqual([]);
    await b.memory.writeFile('/memories/new.md', 'two', { mode: 'update', source: 'user' });
    await b.memory.writeFile('/memories/other.md', 'x', { mode: 'create', source: 'user' });
    await a.v.ingest();
    expect(heard).toEqual([
      { op: 'write', path: '/memories/new.md', version: 2, source: 'system', created: false },
      { op: 'write', path: '/memories/other.md', version: 1, source: 'system', created: true },
    ]);
    heard.length = 0;
    await b.memory.remove('/memories/other.md', 'user');
    await a.v.ingest();
    expect(heard).toEqual([{ op: 'delete', path: '/memories/other.md', source: 'system' }]);
    off();
  } finally {
    await b.close();
  }
});

it('the watcher reads once after a burst of changes, again on its poll, never two reads at once, and not after stop', async () => {
  const dir = path.join(room.root, 'watched');
  await fs.mkdir(path.join(dir, 'devices', 'x'), { recursive: true });
  let running = 0;
  let overlapped = false;
  const read = vi.fn(async () => {
    running++;
    if (running > 1) overlapped = true;
    await new Promise((r) => setTimeout(r, 60));
    running--;
  });
  const stop = watchFolder(dir, read, { settleMs: 150, pollMs: 60_000 });
  try {
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(dir, 'devices', 'x', `f${i}`), 'x');
    await vi.waitFor(() => expect(read).toHaveBeenCalled(), { timeout: 5_000 });
    // The burst is read once or a few times (a loaded machine may space the writes out), not once a file.
    await new Promise((r) => setTimeout(r, 600));
    expect(read.mock.calls.length).toBeLessThanOrEqual(5);
    expect(overlapped).toBe(false);
  } finally {
    stop();
  }
  const after = read.mock.calls.length;
  await fs.writeFile(path.join(dir, 'devices', 'x', 'late'), 'x');
  await new Promise((r) => setTimeout(r, 300));
  expect(read.mock.calls.length).toBe(after);
});

it('with no events at all, the poll still reads', async () => {
  const dir = path.join(room.root, 'quiet');
  await fs.mkdir(dir);
  const read = vi.fn(async () => undefined);
  const stop = watchFolder(dir, read, { settleMs: 10, pollMs: 50 });
  try {
    await vi.waitFor(() => expect(read.mock.calls.length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
  } finally {
    stop();
  }
});

it('a read that fails is tried again at the next poll', async () => {
  const dir = path.join(room.root, 'failing');
  await fs.mkdir(dir);
  let n = 0;
  const read = vi.fn(async () => {
    if (++n === 1) throw new Error('half copied');
  });
  const stop = watchFolder(dir, read, { settleMs: 10, pollMs: 50 });
  try {
    await vi.waitFor(() => expect(n).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
  } finally {
    stop();
  }
});
