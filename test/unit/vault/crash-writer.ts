/**
 * Child process for the crash test: opens the vault (taking over a dead
 * predecessor's lock), prints every memory's hash, then mutates in a loop,
 * printing `begin` before and `ack` after each operation, until killed.
 */
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { Vault } from '../../../electron/core/vault/vault';
import { contentOf } from './crash-writer-content';

const [dir, stateDir, pass, seedText] = process.argv.slice(2) as [string, string, string, string];
let seed = Number(seedText) >>> 0 || 1;
const rand = (n: number) => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed % n;
};
const out = (o: object) => writeSync(1, JSON.stringify(o) + '\n');
const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);


const vault = await Vault.open(dir, { stateDir, journalLimit: 7 });
await vault.unlock(pass);
const dump: Record<string, string> = {};
for (const e of vault.memory.list('/memories', Infinity)) if (e.kind === 'file') dump[e.path] = sha(await vault.memory.readFile(e.path));
const setting = await vault.internal.getJSON<{ n: number }>('settings');
out({ dump, setting: setting?.n ?? null });

for (let n = Number(seedText) * 1000; ; n++) {
  const files = Object.keys(dump);
  const kind = rand(10);
  let op: object;
  if (kind < 6 || files.length < 3) {
    const p = `/memories/${rand(3) ? 'notes' : 'deep/er'}/k${rand(12)}.md`;
    op = { op: 'write', p, h: sha(contentOf(n)) };
    out({ begin: op });
    await vault.memory.writeFile(p, contentOf(n), { mode: 'upsert', source: 'claude' });
    dump[p] = sha(contentOf(n));
  } else if (kind < 8) {
    const from = files[rand(files.length)]!;
    const to = `/memories/moved/m${rand(12)}.md`;
    if (dump[to] !== undefined) continue;
    op = { op: 'rename', p: from, to };
    out({ begin: op });
    await vault.memory.rename(from, to, 'claude');
    dump[to] = dump[from]!;
    delete dump[from];
  } else if (kind < 9) {
    const p = files[rand(files.length)]!;
    op = { op: 'delete', p };
    out({ begin: op });
    await vault.memory.remove(p, 'claude');
    delete dump[p];
  } else {
    op = { op: 'setting', n };
    out({ begin: op });
    await vault.internal.putJSON('settings', { n });
  }
  out({ ack: op });
}
