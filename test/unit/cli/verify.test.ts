import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initVault, memoryLines, mnemo, tempDir } from './helpers';

type TestVault = Awaited<ReturnType<typeof initVault>>;
let template: TestVault;
beforeAll(async () => {
  template = await makeVaultWithMemories();
}, 60_000);

/**
 * A copy of one vault (and its device state) made with the CLI once per file:
 * every test damages its own copy, and none pays for `init` and a write again.
 */
async function vaultWithMemories(format1 = false): Promise<TestVault> {
  const from = format1 ? (template1 ??= await makeVaultWithMemories({ MNEMO_FORMAT: '1' })) : template;
  const root = await tempDir();
  await fs.cp(from.root, root, { recursive: true });
  return { ...from, root, vault: path.join(root, 'vault'), env: { ...from.env, XDG_STATE_HOME: path.join(root, 'state'), HOME: root } };
}
/** The same in format 1, for the tests that damage its own files (segments/, manifest.*): made when first needed. */
let template1: TestVault | undefined;

async function makeVaultWithMemories(more: NodeJS.ProcessEnv = {}): Promise<TestVault> {
  const v = await initVault(more);
  const res = await mnemo(['memory', '--vault', v.vault], {
    env: v.env,
    stdin: memoryLines(
      { command: 'create', path: '/memories/keep.md', file_text: 'keep me' },
      { command: 'create', path: '/memories/victim.md', file_text: 'victim text '.repeat(40) },
    ),
  });
  expect(res.code).toBe(0);
  return v;
}

/** Segment files, largest first: closing folds the journal into the manifest, so the memories sit in the largest and the fresh journal is the smallest. */
async function segments(vault: string): Promise<string[]> {
  const files = (await fs.readdir(path.join(vault, 'segments'))).map((s) => path.join(vault, 'segments', s));
  const sized = await Promise.all(files.map(async (f) => ({ f, size: (await fs.stat(f)).size })));
  return sized.sort((a, b) => b.size - a.size).map((s) => s.f);
}

async function flip(file: string, at: number): Promise<void> {
  const bytes = await fs.readFile(file);
  const i = at < 0 ? bytes.length + at : at;
  bytes[i] = bytes[i]! ^ 0x40;
  await fs.writeFile(file, bytes);
}

describe('mnemo verify', () => {
  it('exits 0 on a sound vault', async () => {
    const v = await vaultWithMemories();
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toMatch(/^ok/);
  });

  it('exits 4 naming the memory and the file when a blob byte is flipped; the other memory still opens', async () => {
    // Format 1: the byte is flipped in its segments/ file, which the report names.
    const v = await vaultWithMemories(true);
    const [seg] = await segments(v.vault);
    // The victim is the last record written: its blob ends the journal segment.
    await flip(seg!, -20);
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(4);
    expect(res.stdout).toContain('/memories/victim.md');
    expect(res.stdout).toContain(`segments/${path.basename(seg!)}`);
    const cat = await mnemo(['cat', '/memories/victim.md', '--vault', v.vault], { env: v.env });
    expect(cat.code).toBe(4);
    expect(cat.stdout).toBe('');
    expect(cat.stderr).toContain('/memories/victim.md');
    expect(await mnemo(['cat', '/memories/keep.md', '--vault', v.vault], { env: v.env })).toMatchObject({ code: 0, stdout: 'keep me' });
  });

  it('exits 4 naming vault.json when a header byte is flipped', async () => {
    const v = await vaultWithMemories();
    await flip(path.join(v.vault, 'vault.json'), 40);
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('vault.json');
  });

  it('exits 4 naming the manifest when it is damaged, and every memory still opens from the fallback', async () => {
    // Format 1: its manifest and the fallback copy (format 2 has per-device checkpoints instead).
    const v = await vaultWithMemories(true);
    const manifest = (await fs.readdir(v.vault)).find((f) => f.startsWith('manifest.') && !f.endsWith('.prev'))!;
    await flip(path.join(v.vault, manifest), 60);
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(4);
    expect(res.stdout).toMatch(/^manifest: damaged/m);
    expect(await mnemo(['cat', '/memories/keep.md', '--vault', v.vault], { env: v.env })).toMatchObject({ code: 0, stdout: 'keep me' });
    expect((await mnemo(['cat', '/memories/victim.md', '--vault', v.vault], { env: v.env })).code).toBe(0);
  });

  it('exits 4 when both manifests are damaged, naming the manifest', async () => {
    const v = await vaultWithMemories();
    for (const f of (await fs.readdir(v.vault)).filter((f) => f.startsWith('manifest.'))) await flip(path.join(v.vault, f), 60);
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/manifest/);
  });

  it('exits 3 on a wrong passphrase and changes nothing', async () => {
    const v = await vaultWithMemories();
    const before = await fs.readFile(path.join(v.vault, 'vault.json'));
    const res = await mnemo(['verify', '--vault', v.vault], { env: { ...v.env, MNEMO_PASSPHRASE: 'not the passphrase' } });
    expect(res.code).toBe(3);
    expect(await fs.readFile(path.join(v.vault, 'vault.json'))).toEqual(before);
  });

  it('exits 0 right after an interrupted write left a torn record at the end of the journal', async () => {
    const v = await vaultWithMemories();
    const seg = (await segments(v.vault)).at(-1);
    // Half a record frame: what a crash in the middle of an append leaves.
    await fs.appendFile(seg!, Buffer.from([0x10, 0x00, 0x00]));
    const res = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(res.code).toBe(0);
    expect((await mnemo(['cat', '/memories/victim.md', '--vault', v.vault], { env: v.env })).code).toBe(0);
  });
});
