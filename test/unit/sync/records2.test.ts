/** The v2 segment and record format: every record is bound to its device, key epoch, segment and offset (docs/sync-design.md §2.2). */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomSeed, sample } from '../../deep';
import { cryptoReady, hash, randomBytes, toHex } from '../../../electron/core/vault/crypto';
import type { RecordMeta } from '../../../electron/core/vault/sync/op';
import { parseSegmentName, SEG2_HEADER, SegmentCodec2, segmentName, type ScanItem2, type SegmentId } from '../../../electron/core/vault/sync/records2';

beforeAll(cryptoReady);

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const EPOCH = 'e'.repeat(32);
const seg = (device = A, name = segmentName('j', 1, '0badc0de'), epoch = EPOCH): SegmentId => ({ device, epoch, name });

function setup() {
  const vaultId = randomBytes(16);
  const key = randomBytes(32);
  return { vaultId, key, codec: new SegmentCodec2(vaultId, key) };
}

/** A segment of `metas` (each put with a blob of its own), as a writer lays it out. */
function writeSegment(codec: SegmentCodec2, id: SegmentId, metas: RecordMeta[], blobs: Uint8Array[]): Uint8Array {
  const parts = [codec.header(id)];
  let pos = SEG2_HEADER;
  metas.forEach((m, i) => {
    const { bytes } = codec.encode(id, pos, m, blobs[i]);
    parts.push(bytes);
    pos += bytes.length;
  });
  const out = new Uint8Array(pos);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function putMeta(seq: number, blob: Uint8Array): RecordMeta {
  return { s: seq, h: [1000 + seq, 0], at: 1000 + seq, op: { t: 'put', f: `${A}:1`, ...(seq === 1 ? { p: '/memories/a.md' } : {}), par: seq === 1 ? [] : [`${A}:${seq - 1}`], b: { id: toHex(randomBytes(16)), len: blob.length, h: toHex(hash(blob)) }, s: 3, k: 'k' } };
}

function segmentOf(codec: SegmentCodec2, id = seg()) {
  const blobs = [randomBytes(40), randomBytes(40), new Uint8Array(0)];
  const metas = [putMeta(1, blobs[0]!), putMeta(2, blobs[1]!), { h: [1003, 0], at: 1003, op: { t: 'ack' } } as RecordMeta];
  return { bytes: writeSegment(codec, id, metas, blobs), metas, blobs };
}

const records = (items: Iterable<ScanItem2>) => [...items].filter((i) => i.kind === 'record');

describe('segment names', () => {
  it('carry the kind, the first seq and the random part, and nothing else parses', () => {
    expect(segmentName('j', 0x1234, 'abcdef01')).toBe('j-000000001234-abcdef01');
    expect(parseSegmentName('c-000000001234-abcdef01')).toEqual({ kind: 'c', firstSeq: 0x1234, rand: 'abcdef01' });
    for (const junk of ['.syncthing.j-000000001234-abcdef01.tmp', 'j-000000001234-abcdef01.sync-conflict-1', 'J-000000001234-ABCDEF01', 'x-000000001234-abcdef01', '.tmp-ab12cd34-1']) {
      expect(parseSegmentName(junk)).toBeUndefined();
    }
  });
});

describe('records', () => {
  it('round-trip: every record decodes to its meta and blob, in order', () => {
    const { codec } = setup();
    const { bytes, metas, blobs } = segmentOf(codec);
    expect(codec.headerOk(seg(), bytes)).toBe(true);
    const got = records(codec.scan(seg(), bytes));
    expect(got.map((r) => r.kind === 'record' && r.meta)).toEqual(metas);
    expect(got.map((r) => r.kind === 'record' && [...r.blob])).toEqual(blobs.map((b) => [...b]));
    for (const r of got) if (r.kind === 'record') expect(bytes.subarray(r.blobAt, r.blobAt + r.blob.length)).toEqual(r.blob);
    expect(codec.verify(seg(), bytes)).toEqual([]);
  });

  it('a record copied into another device’s folder fails authentication', () => {
    const { codec } = setup();
    const { bytes } = segmentOf(codec);
    const scanned = records(codec.scan(seg(B), bytes));
    expect(scanned.every((r) => r.kind === 'record' && r.meta === undefined && r.bad === 'auth')).toBe(true);
    expect(codec.headerOk(seg(B), bytes)).toBe(false);
  });

  it('a record read under another key epoch, segment name or vault fails authentication', () => {
    const { codec, key } = setup();
    const { bytes } = segmentOf(codec);
    const other = [seg(A, segmentName('j', 1, '0badc0df')), seg(A, segmentName('j', 2, '0badc0de')), seg(A, undefined, 'f'.repeat(32))];
    for (const id of other) expect(records(codec.scan(id, bytes)).every((r) => r.kind === 'record' && !r.meta)).toBe(true);
    expect(records(new SegmentCodec2(randomBytes(16), key).scan(seg(), bytes)).every((r) => r.kind === 'record' && !r.meta)).toBe(true);
  });

  it('a record moved to another offset (reordered, or spliced into another segment) fails authentication', () => {
    const { codec } = setup();
    const { bytes } = segmentOf(codec);
    const [r1, r2] = records(codec.scan(seg(), bytes)) as Array<Extract<ScanItem2, { kind: 'record' }>>;
    const first = bytes.subarray(r1!.pos, r1!.next);
    const second = bytes.subarray(r2!.pos, r2!.next);
    const swapped = new Uint8Array([...bytes.subarray(0, SEG2_HEADER), ...second, ...first]);
    expect(records(codec.scan(seg(), swapped)).every((r) => r.kind === 'record' && !r.meta)).toBe(true);
    const otherSeg = seg(A, segmentName('j', 3, '12345678'));
    const spliced = new Uint8Array([...codec.header(otherSeg), ...first]);
    expect(records(codec.scan(otherSeg, spliced)).every((r) => r.kind === 'record' && !r.meta)).toBe(true);
  });

  it('every flipped byte is caught: in the header, a frame, a meta, or a blob', () => {
    const { codec } = setup();
    const { bytes } = segmentOf(codec);
    // Every byte under MNEMO_DEEP; else the header and each frame's first bytes, and a sample of the rest.
    const framing = records(codec.scan(seg(), bytes)).flatMap((r) => Array.from({ length: 16 }, (_, k) => r.pos + k));
    const rest = sample([...Array(bytes.length).keys()], 120, randomSeed('records2 bit flips'));
    for (const i of new Set([...Array(SEG2_HEADER).keys(), ...framing, ...rest, bytes.length - 1])) {
      const bad = bytes.slice();
      bad[i]! ^= 0x01;
      expect(codec.verify(seg(), bad).length, `byte ${i}`).toBeGreaterThan(0);
    }
  });

  it('a torn tail is "torn" at every cut, never tamper, and the whole records before it still read', () => {
    const { codec } = setup();
    const { bytes } = segmentOf(codec);
    const ends = records(codec.scan(seg(), bytes)).map((r) => (r.kind === 'record' ? r.next : 0));
    const cuts = sample([...Array(bytes.length).keys()].slice(SEG2_HEADER + 1), 80, randomSeed('records2 torn tails'));
    for (const cut of new Set([...cuts, ...ends.flatMap((e) => [e - 1, e, e + 1]).filter((c) => c > SEG2_HEADER && c < bytes.length)])) {
      const items = [...codec.scan(seg(), bytes.subarray(0, cut))];
      const whole = ends.filter((e) => e <= cut).length;
      expect(items.filter((i) => i.kind === 'record' && i.meta).length, `cut ${cut}`).toBe(whole);
      if (!ends.includes(cut)) expect(items.at(-1)?.kind, `cut ${cut}`).toBe('torn');
      expect(codec.verify(seg(), bytes.subarray(0, cut)), `cut ${cut}`).toEqual([]);
    }
  });

  it('reads a tail from a record boundary, as a catch-up does', () => {
    const { codec } = setup();
    const { bytes, metas } = segmentOf(codec);
    const [, r2] = records(codec.scan(seg(), bytes));
    const tail = records(codec.scan(seg(), bytes.subarray(r2!.pos), r2!.pos));
    expect(tail.map((r) => r.kind === 'record' && r.meta)).toEqual(metas.slice(1));
  });

  it('a record of a shape this build does not know is reported as such, not as tamper', () => {
    const { codec } = setup();
    const id = seg();
    const strange = { s: 1, h: [1, 0], at: 1, op: { t: 'teleport' } } as unknown as RecordMeta;
    const noSeq = { h: [1, 0], at: 1, op: { t: 'mkdir', p: '/memories/x' } } as RecordMeta;
    const bytes = writeSegment(codec, id, [strange, noSeq], []);
    expect(records(codec.scan(id, bytes)).map((r) => r.kind === 'record' && r.bad)).toEqual(['shape', 'shape']);
  });

  it('a blob cut short or grown under an intact meta fails', () => {
    const { codec } = setup();
    const id = seg();
    const blob = randomBytes(10);
    const meta = putMeta(1, blob);
    const bytes = writeSegment(codec, id, [meta], [blob.subarray(0, 9)]);
    expect(records(codec.scan(id, bytes)).map((r) => r.kind === 'record' && r.bad)).toEqual(['auth']);
  });
});
