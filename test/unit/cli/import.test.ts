import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initVault, mnemo } from './helpers';

async function folder(root: string, files: Record<string, string>): Promise<string> {
  const src = path.join(root, `src-${Math.random().toString(36).slice(2)}`);
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(src, rel)), { recursive: true });
    await fs.writeFile(path.join(src, rel), text);
  }
  return src;
}

describe('mnemo import', () => {
  it('a file over the memory tool’s per-file limit is refused by name and nothing is imported', async () => {
    const { root, vault, env } = await initVault();
    const src = await folder(root, { 'small.md': 'fits', 'huge.md': 'x'.repeat(5 * 1024 * 1024) });
    const res = await mnemo(['import', src, '--vault', vault], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/huge\.md: .*limit/);
    expect((await mnemo(['cat', '/memories/small.md', '--vault', vault], { env })).code).toBe(1);
  });

  it('re-running a finished import succeeds and skips the files already there with the same text', async () => {
    const { root, vault, env } = await initVault();
    const src = await folder(root, { 'a.md': 'alpha', 'd/b.md': 'beta' });
    expect((await mnemo(['import', src, '--vault', vault], { env })).code).toBe(0);
    await fs.writeFile(path.join(src, 'c.md'), 'gamma, added after the first run');
    const again = await mnemo(['import', src, '--vault', vault], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/Imported 1 memories \(2 already there/);
    expect((await mnemo(['cat', '/memories/c.md', '--vault', vault], { env })).stdout).toBe('gamma, added after the first run');
    expect((await mnemo(['cat', '/memories/a.md', '--vault', vault], { env })).stdout).toBe('alpha');
  });
});
