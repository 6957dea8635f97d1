/**
 * Replaying a journal segment into a State at unlock: every readable record in
 * order, a torn last record dropped (it was never acknowledged), anything else
 * unreadable reported as damage.
 */
import { segmentFile } from './blobs';
import { SEG_HEADER, type SegmentCodec } from './records';
import type { State } from './state';

/**
 * Applies every readable record of `bytes` (segment `segId`) to `state`,
 * pushing one line per problem onto `problems`. Returns where the readable
 * part ends, and `damaged` when the segment cannot safely take more appends.
 */
export function replaySegment(codec: SegmentCodec, segId: string, bytes: Uint8Array, state: State, problems: string[]): { end: number; damaged: boolean } {
  if (!codec.headerOk(segId, bytes)) {
    problems.push(`${segmentFile(segId)}: the journal header is damaged; recent changes may be lost`);
    return { end: bytes.length, damaged: true };
  }
  const { end, damaged } = replayFrom(codec, segId, bytes, 0, state, problems);
  return { end, damaged };
}

/**
 * Applies the records of `bytes`, the part of segment `segId` from offset
 * `base` (where a record starts) to its end, as replaySegment does: the
 * catch-up with records other processes appended (vault.ts `hold`). Also
 * returns how many records were read.
 */
export function replayFrom(codec: SegmentCodec, segId: string, bytes: Uint8Array, base: number, state: State, problems: string[]): { end: number; damaged: boolean; records: number } {
  const name = segmentFile(segId);
  let end = Math.max(SEG_HEADER, base);
  let records = 0;
  for (const item of codec.scan(segId, bytes, base)) {
    if (item.kind === 'torn') return { end: item.pos, damaged: false, records };
    if (item.kind === 'broken') {
      problems.push(`${name}: unreadable record at offset ${item.pos}; later changes may be lost`);
      return { end: base + bytes.length, damaged: true, records };
    }
    records++;
    const rec = item.rec;
    if (!rec) problems.push(`${name}: record at offset ${item.pos} fails authentication; that change is lost`);
    // Relocations and blobs written ahead of a batch change no content: they take no generation.
    else if (rec.op.t === 'reloc' || rec.op.t === 'blob') state.apply(rec.op);
    else if (rec.g <= state.gen) problems.push(`${name}: record at offset ${item.pos} is out of order; it was ignored`);
    else {
      state.gen = rec.g - 1;
      state.apply(rec.op);
    }
    end = item.next;
  }
  return { end, damaged: false, records };
}
