/**
 * The packed main bundle, started the way an installed app is but with a
 * debugging switch on its command line: it must refuse before any window,
 * IPC handler or vault exists.
 */
import fs from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { rec } from '../unit/main/electron-stub';
import { extractInstalledLayout } from './layout';

const paths = vi.hoisted(() => {
  const tmp = process.env.TMPDIR ?? process.env.TEMP ?? '/tmp';
  const base = `${tmp}/mnemo-packaged-guards-${process.pid}-${Math.random().toString(36).slice(2)}`;
  process.env.XDG_STATE_HOME = `${base}/state`;
  return { base, userData: `${base}/userData`, resources: `${base}/resources` };
});
vi.mock('electron', async () => (await import('../unit/main/electron-stub')).electronStub(paths.userData));

describe('the packed app started with --remote-debugging-port', () => {
  beforeAll(async () => {
    const argv = process.argv;
    process.argv = [...argv, '--remote-debugging-port=9222'];
    try {
      await import(/* @vite-ignore */ extractInstalledLayout(paths.resources));
      await new Promise((r) => setImmediate(r)); // let any app.whenReady().then(...) run
    } finally {
      process.argv = argv;
    }
  });

  it('tells the user why and exits with status 1', () => {
    expect(rec.exits).toEqual([1]);
    expect(rec.errorBoxes).toEqual([{ title: 'Mnemo did not start', content: expect.stringContaining('--remote-debugging-port') }]);
  });

  it('creates no window, registers no IPC handler and touches no vault', () => {
    expect(rec.windows).toEqual([]);
    expect(rec.ipcHandlers.size).toBe(0);
    expect(fs.existsSync(paths.userData)).toBe(false);
  });
});

process.on('exit', () => fs.rmSync(paths.base, { recursive: true, force: true }));
