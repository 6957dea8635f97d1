import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startAutoLock } from '../../../electron/main/autolock';
import { CONTENT_SECURITY_POLICY, isAllowedExternal } from '../../../electron/main/csp';
import { readStatic } from '../../../electron/main/static-files';
import { loadBounds, saveBounds } from '../../../electron/main/window-state';

afterEach(() => vi.useRealTimers());

describe('auto-lock', () => {
  async function run(opts: { idle: number; minutes: number | undefined }) {
    vi.useFakeTimers();
    const lock = vi.fn();
    const stop = startAutoLock({ idleSeconds: () => opts.idle, minutes: async () => opts.minutes, lock, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(1000);
    stop();
    return lock;
  }

  it('locks once the user has been idle for the configured minutes', async () => {
    expect(await run({ idle: 10 * 60, minutes: 10 })).toHaveBeenCalledTimes(1);
  });
  it('does not lock before the idle minutes have passed', async () => {
    expect(await run({ idle: 10 * 60 - 1, minutes: 10 })).not.toHaveBeenCalled();
  });
  it('never locks when the setting is 0, or while already locked', async () => {
    expect(await run({ idle: 99_999, minutes: 0 })).not.toHaveBeenCalled();
    expect(await run({ idle: 99_999, minutes: undefined })).not.toHaveBeenCalled();
  });
});

describe('serving the renderer', () => {
  it('serves files under the root and nothing outside it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-static-'));
    await fs.mkdir(path.join(dir, 'root/assets'), { recursive: true });
    await fs.writeFile(path.join(dir, 'root/index.html'), '<p>app</p>');
    await fs.writeFile(path.join(dir, 'root/assets/a.js'), 'x');
    await fs.writeFile(path.join(dir, 'secret.txt'), 'secret');
    const root = path.join(dir, 'root');
    expect((await readStatic(root, '/'))?.contentType).toMatch(/^text\/html/);
    expect((await readStatic(root, '/assets/a.js?v=1'))?.contentType).toMatch(/^text\/javascript/);
    for (const bad of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/../../secret.txt', '/%E0%A4%A', '/missing.js']) {
      expect(await readStatic(root, bad), bad).toBeUndefined();
    }
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('sends a CSP without inline or remote script and without network from the page', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*(unsafe|https?:|\*)/);
  });

  it('opens only allow-listed https links outside the app', () => {
    expect(isAllowedExternal('https://console.anthropic.com/settings/keys')).toBe(true);
    expect(isAllowedExternal('https://docs.anthropic.com/en/docs')).toBe(true);
    for (const bad of ['http://console.anthropic.com/', 'https://console.anthropic.com.evil.example/', 'https://user:pw@console.anthropic.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'https://evil.example/']) {
      expect(isAllowedExternal(bad), bad).toBe(false);
    }
  });
});

describe('window state', () => {
  it('remembers the bounds between runs and falls back to defaults on a damaged file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-bounds-'));
    expect(loadBounds(dir)).toEqual({ width: 1200, height: 800 });
    saveBounds(dir, { x: 10, y: 20, width: 900, height: 700, maximized: true });
    expect(loadBounds(dir)).toEqual({ x: 10, y: 20, width: 900, height: 700, maximized: true });
    await fs.writeFile(path.join(dir, 'window-state.json'), '{"width": "huge"');
    expect(loadBounds(dir)).toEqual({ width: 1200, height: 800 });
    await fs.rm(dir, { recursive: true, force: true });
  });
});
