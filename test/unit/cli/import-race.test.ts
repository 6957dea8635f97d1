/**
 * `mnemo import` reads only the files of the folder it was given: files (and
 * folders) swapped for symlinks to somewhere else while it runs are never
 * followed, so no outside text ever becomes a memory.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEEP } from '../../deep';
import { initVault, mnemo } from './helpers';

const SECRET = 'OUTSIDE-SECRET-7f3a';
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
});

/** Swaps every file, and the folder `sub`, for symlinks to the outside and back, in bursts of random length, until stopped. */
function swapper(src: string, names: string[], outsideFile: string, outsideDir: string): { stop: () => Promise<number> } {
  let running = true;
  let swaps = 0;
  const pause = () => new Promise((r) => setTimeout(r, Math.random() * 4));
  const loop = (async () => {
    const items = [...names.map((n) => [path.join(src, n), outsideFile] as const), [path.join(src, 'sub'), outsideDir] as const];
    while (running) {
      for (const [p, target] of items) {
        await fs.rename(p, `${p}.real`).catch(() => undefined);
        await fs.symlink(target, p).catch(() => undefined);
      }
      swaps++;
      await pause();
      for (const [p] of items) {
        await fs.rm(p, { force: true }).catch(() => undefined);
        await fs.rename(`${p}.real`, p).catch(() => undefined);
      }
      await pause();
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return swaps;
    },
  };
}

describe('mnemo import while its files are swapped for symlinks', () => {
  it('never imports the text of a file outside the folder', async () => {
    const t = await initVault();
    roots.push(t.root);
    const outsideDir = path.join(t.root, 'outside');
    await fs.mkdir(outsideDir);
    const outsideFile = path.join(outsideDir, 'secret.md');
    await fs.writeFile(outsideFile, `${SECRET}\n`);
    for (let i = 0; i < 40; i++) await fs.writeFile(path.join(outsideDir, `s${i}.md`), `${SECRET} ${i}\n`);
    const src = path.join(t.root, 'src');
    await fs.mkdir(path.join(src, 'sub'), { recursive: true });
    const names: string[] = [];
    for (let i = 0; i < 150; i++) names.push(`f${i}.md`);
    for (let i = 0; i < 40; i++) names.push(`sub/s${i}.md`);
    for (const n of names) await fs.writeFile(path.join(src, n), `inside ${n}\n`);

    for (let round = 0; round < (DEEP ? 12 : 6); round++) {
      const swap = swapper(src, names.filter((n) => !n.startsWith('sub/')), outsideFile, outsideDir);
      const res = await mnemo(['import', src, '--overwrite', '--vault', t.vault], { env: t.env });
      expect(await swap.stop()).toBeGreaterThan(0);
      expect([0, 1], res.stderr).toContain(res.code);
      const out = path.join(t.root, `export-${round}`);
      const exp = await mnemo(['export', out, '--plaintext', '--vault', t.vault], { env: t.env });
      expect(exp.code, exp.stderr).toBe(0);
      for (const f of await fs.readdir(out, { recursive: true }).catch(() => [] as string[])) {
        const p = path.join(out, f);
        if ((await fs.stat(p)).isFile()) expect(await fs.readFile(p, 'utf8'), f).not.toContain(SECRET);
      }
    }
    // The folder, left alone, imports whole.
    const calm = await mnemo(['import', src, '--overwrite', '--vault', t.vault], { env: t.env });
    expect(calm.code, calm.stderr).toBe(0);
    const listed = await mnemo(['ls', '--vault', t.vault], { env: t.env });
    for (const n of names) expect(listed.stdout, n).toContain(`/memories/${n}\n`);
  }, 300_000);
});
