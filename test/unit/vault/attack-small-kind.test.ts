/**
 * Attack on `MemoryOps.kind(path)` (types.ts; ops.ts, sync/view.ts `kind`, contents.ts, projects/scope.ts): it must
 * answer `stat(path)?.kind` for every path, in both formats, through the vault's own ops, through `exclusive`'s ops,
 * and through every project's `scopeOps`. Random sequences of writes, folders, deletes (trash), renames, trash
 * restores, trash emptying and reopens are run on a fresh vault; after each step every path ever named (files,
 * folders, folders kept only by their files, trashed paths, the root, other projects' paths, paths under a file)
 * is compared. Also `hasDirTag(p)` against `dirTags(p).length > 0` in format 2 (used by ops2.ts `keepParents`).
 */
import { afterEach, expect, it } from 'vitest';
import { MemoryScope, projectRoot, scopeOps } from '../../../electron/core/projects/scope';
import type { MemoryOps } from '../../../electron/core/vault/types';
import { tempVault, type TempVault } from './helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['a', 'b', 'c.md', 'd.md'];
const OTHER = projectRoot('p2', false);
/** What the comparisons met, so a run that only met refusals is caught. */
const seen = new Set<string>();
let done = 0;

function compare(ops: MemoryOps, paths: Iterable<string>, where: string) {
  for (const p of paths) {
    let stat: string | undefined;
    let kind: string | undefined;
    try {
      stat = `ok ${ops.stat(p)?.kind}`;
    } catch (e) {
      stat = `throws ${(e as Error).message}`;
    }
    try {
      kind = `ok ${ops.kind(p)}`;
    } catch (e) {
      kind = `throws ${(e as Error).message}`;
    }
    expect(kind, `${where}: kind(${p}) vs stat(${p})?.kind`).toBe(stat);
    seen.add(stat);
  }
}

async function run(format2: boolean, seed: number, steps: number) {
  t = await tempVault({ format2 });
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const rel = () => {
    const depth = 1 + Math.floor(r() * 3);
    return Array.from({ length: depth }, () => pick(NAMES)).join('/');
  };
  const base = () => (r() < 0.3 ? OTHER : '/memories');
  const named = new Set<string>(['/memories', OTHER, '/memories/.mnemo-projects', '/memories/a/b/c/d']);
  const scopes = [new MemoryScope(projectRoot('default', true)), new MemoryScope(OTHER)];
  const check = async (where: string) => {
    const vault = t!.vault;
    compare(vault.memory, named, `${where} memory`);
    const scoped = [...named].flatMap((p) => (p.startsWith(OTHER) ? ['/memories' + p.slice(OTHER.length)] : [p]));
    for (const s of scopes) compare(scopeOps(vault.memory, s), scoped, `${where} scope ${s.root}`);
    await vault.exclusive(async (ops) => compare(ops, named, `${where} exclusive`));
  };
  for (let i = 0; i < steps; i++) {
    const vault = t.vault;
    const p = `${base()}/${rel()}`;
    named.add(p);
    const op = r();
    const where = `format ${format2 ? 2 : 1}, seed ${seed}, step ${i}`;
    try {
      if (op < 0.35) await vault.memory.writeFile(p, `text ${i}`, { mode: 'upsert', source: 'user' });
      else if (op < 0.5) await vault.memory.mkdir(p, 'user');
      else if (op < 0.65) await vault.memory.remove(p, 'user');
      else if (op < 0.8) {
        const q = `${base()}/${rel()}`;
        named.add(q);
        await vault.memory.rename(p, q, 'user');
      } else if (op < 0.9) {
        const gone = vault.trash();
        if (gone.length) await vault.restoreDeleted(pick(gone).path);
      } else if (op < 0.95) await vault.emptyTrash();
      else await t.reopen();
      done++;
    } catch {
      // Refused (EXISTS, NOT_FOUND, a file in the way…): what is there is compared all the same.
    }
    for (const e of t.vault.trash()) named.add(e.path);
    await check(where);
  }
  if (format2) {
    // keepParents asks hasDirTag where it asked dirTags(d).length: the same answer for every folder ever named.
    await t.vault.exclusive(async () => {
      const view = (t!.vault as unknown as { session2?: { view: { hasDirTag(p: string): boolean; dirTags(p: string): string[] } } }).session2?.view;
      expect(view, 'the format-2 session is reachable').toBeDefined();
      for (const p of named) expect(view!.hasDirTag(p), `hasDirTag(${p})`).toBe(view!.dirTags(p).length > 0);
    });
  }
}

for (const format2 of [false, true]) {
  it(`format ${format2 ? 2 : 1}: kind(p) is stat(p)?.kind for every path, over random changes`, { timeout: 240_000 }, async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      await run(format2, seed, 120);
      await t!.cleanup();
      t = undefined;
    }
    // Files, folders and nothing were all met, and most steps changed something.
    expect([...seen].filter((s) => s.startsWith('ok ')).sort()).toEqual(['ok dir', 'ok file', 'ok undefined']);
    expect(done).toBeGreaterThan(250);
    done = 0;
  });
}
