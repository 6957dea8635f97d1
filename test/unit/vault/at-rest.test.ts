import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listFiles, tempVault, type TempVault } from './helpers';

/** Nothing a user wrote may be readable in the vault's files: not names, not contents, in any common encoding. */
const MARKER = 'Zebrafish7Marker';
let t: TempVault;

beforeAll(async () => {
  t = await tempVault();
  const v = t.vault;
  await v.memory.writeFile(`/memories/${MARKER}/note-${MARKER}.md`, `The user said ${MARKER} twice: ${MARKER}.\n`.repeat(20), { mode: 'create', source: 'claude' });
  await v.memory.writeFile(`/memories/${MARKER}/note-${MARKER}.md`, `Edited ${MARKER}`, { mode: 'update', source: 'user' });
  await v.memory.writeFile(`/memories/big.md`, `${MARKER}\n`.repeat(20000), { mode: 'create', source: 'user' });
  await v.memory.rename(`/memories/big.md`, `/memories/${MARKER}-moved.md`, 'user');
  await v.internal.putJSON('settings', { memoryGuidance: MARKER });
  await v.internal.put('secrets/api-key', new TextEncoder().encode(`sk-ant-${MARKER}`));
  await v.internal.putJSON(`conversations/${MARKER.toLowerCase()}`, { title: MARKER, messages: [MARKER] });
  // Leave some in the journal and fold some into the manifest.
  await t.reopen();
  await t.vault.memory.writeFile(`/memories/after-${MARKER}.md`, MARKER, { mode: 'create', source: 'claude' });
  t.vault.lock();
  await t.vault.close();
});
afterAll(() => fs.rm(t.root, { recursive: true, force: true }));

function encodings(s: string): Buffer[] {
  const forms = [Buffer.from(s, 'utf8'), Buffer.from(s, 'utf16le'), Buffer.from(s.toLowerCase(), 'utf8'), Buffer.from(Buffer.from(s).toString('hex')), Buffer.from(Buffer.from(s).toString('hex').toUpperCase())];
  // base64 at each of the three alignments: the stable middle part of each. Only for long strings:
  // a short middle part (a few characters) turns up by chance in any few kilobytes of ciphertext.
  if (s.length < 12) return forms;
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.from('x'.repeat(shift) + s).toString('base64');
    forms.push(Buffer.from(b64.slice(4, -4)));
    forms.push(Buffer.from(Buffer.from('x'.repeat(shift) + s).toString('base64url').slice(4, -4)));
  }
  return forms;
}

it('no file under the vault directory contains a memory name, text, setting or the API key in any encoding', async () => {
  const files = await listFiles(t.dir);
  expect(files.length).toBeGreaterThan(3);
  const needles = [...encodings(MARKER), ...encodings('memories')];
  for (const f of files) {
    const bytes = await fs.readFile(path.join(t.dir, f));
    for (const n of needles) expect(bytes.includes(n), `${f} contains ${n.toString()}`).toBe(false);
  }
});

it('file sizes reveal only padded buckets, not exact lengths', async () => {
  const sizes = new Set<number>();
  for (const f of await listFiles(t.dir)) if (f.startsWith('manifest.')) sizes.add((await fs.stat(path.join(t.dir, f))).size);
  for (const s of sizes) expect((s - 8 - 16 - 24 - 16 - 1) % 256).toBe(0);
});
