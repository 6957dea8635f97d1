/**
 * Compaction relocates blobs one record at a time (live, and again when a
 * journal is replayed at unlock). Each relocation must find the blob's holders
 * without walking the whole manifest, or emptying the trash of a large vault
 * costs the square of its size.
 */
import { describe, expect, it, vi } from 'vitest';
import { State, type BlobRef } from '../../../electron/core/vault/state';

const ref = (id: string, seg = 'old'): BlobRef => ({ id, seg, off: 0, len: 10, h: 'h' });

function vaultOf(n: number): State {
  const s = State.empty(20, 1);
  for (let i = 0; i < n; i++) {
    s.apply({ t: 'write', p: `/memories/m${i}.md`, b: ref(`f${i}`), s: 1, v: 1, at: 1 });
    s.apply({ t: 'write', p: `/memories/m${i}.md`, b: ref(`g${i}`), s: 1, v: 2, at: 2 });
  }
  s.apply({ t: 'iput', k: 'settings', b: ref('i0') });
  return s;
}

describe('relocating blobs (compaction)', () => {
  it('a run of relocations walks the manifest once, not once per blob, and moves every holder', () => {
    const s = vaultOf(1000);
    const walks = vi.spyOn(s.files, 'values');
    for (let i = 0; i < 1000; i++) {
      s.apply({ t: 'reloc', b: ref(`f${i}`, 'new') });
      s.apply({ t: 'reloc', b: ref(`g${i}`, 'new') });
    }
    s.apply({ t: 'reloc', b: ref('i0', 'new') });
    expect(walks.mock.calls.length).toBeLessThanOrEqual(1);
    expect([...s.liveBlobs()].every((b) => b.seg === 'new')).toBe(true);
    expect([...s.liveBlobs()]).toHaveLength(2001);
  });

  it('a relocation after other changes still finds blobs written, moved or kept as history since', () => {
    const s = vaultOf(2);
    s.apply({ t: 'reloc', b: ref('f0', 'a') });
    s.apply({ t: 'write', p: '/memories/new.md', b: ref('n1'), s: 1, v: 1, at: 3 });
    s.apply({ t: 'mv', p: '/memories/m1.md', np: '/memories/moved.md', at: 3 });
    s.apply({ t: 'rm', p: '/memories/m0.md', at: 4 });
    s.apply({ t: 'iput', k: 'settings', b: ref('i1') });
    for (const id of ['n1', 'g1', 'f1', 'g0', 'f0', 'i1']) s.apply({ t: 'reloc', b: ref(id, 'b') });
    expect(s.files.get('/memories/new.md')?.b.seg).toBe('b');
    expect(s.files.get('/memories/moved.md')?.b.seg).toBe('b');
    expect(s.hist.get('/memories/moved.md')?.map((h) => h.b.seg)).toEqual(['b']);
    expect(s.hist.get('/memories/m0.md')?.map((h) => h.b.seg)).toEqual(['b', 'b']);
    expect(s.internal.get('settings')?.seg).toBe('b');
  });
});
