import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleCli } from '../../../electron/cli/bundle';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Runs `node <out>/cli.js ls` on a folder with no vault: it loads the CLI proper (its chunks) and answers with a usage error. */
async function run(out: string): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [path.join(out, 'cli.js'), 'ls', '--vault', path.join(out, 'no-vault')], { env: {}, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stderr: stderr.replaceAll(out, '<out>') };
}

describe('rebuilding the bundled mnemo', () => {
  it('two rebuilds at once, with mnemo run over and over meanwhile, never give a run half a bundle', async () => {
    // Beside dist/, so the bundle finds node_modules as dist/cli.js does, without touching the bundle other tests run.
    await fs.mkdir(path.join(ROOT, 'dist'), { recursive: true });
    const out = await fs.mkdtemp(path.join(ROOT, 'dist', '.bundle-test-'));
    try {
      await bundleCli({ outDir: out });
      const before = await run(out);
      expect(before.stderr).toContain('there is no vault at <out>/no-vault');
      let building = true;
      const builds = Promise.all([bundleCli({ outDir: out }), bundleCli({ outDir: out })]).finally(() => (building = false));
      const runs: Array<{ code: number; stderr: string }> = [];
      do runs.push(await run(out));
      while (building);
      expect(await builds).toEqual([true, true]);
      runs.push(await run(out));
      expect(runs.filter((r) => r.code !== before.code || r.stderr !== before.stderr)).toEqual([]);
      // Nothing of the builds is left beside the bundle.
      expect((await fs.readdir(out)).sort()).toEqual(['cli', 'cli.js']);
    } finally {
      await fs.rm(out, { recursive: true, force: true });
    }
  });
});
