import type { ReactNode } from 'react';

/**
 * `text` with the ranges main found the query at wrapped in `<mark>`. The
 * ranges come over IPC, so any that are out of order, overlapping or out of
 * bounds are skipped rather than trusted; the text is only ever text.
 */
export function Marked({ text, marks = [] }: { text: string; marks?: ReadonlyArray<readonly [number, number]> | undefined }) {
  const out: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (!(start >= at && end > start && end <= text.length)) continue;
    if (start > at) out.push(text.slice(at, start));
    out.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return <>{out}</>;
}
