import { Fragment } from 'react';

/** A character of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko…, and their presentation forms). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]|\ud802[\udc00-\udfff]|\ud83a[\udc00-\udfff]/;

/**
 * A path for an attribute (a tooltip), where no element can isolate: each segment holding
 * right-to-left letters is wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE, so
 * `/memories/مشروع/2024.md` keeps its segments in order. A path of left-to-right names is
 * returned as it is.
 */
export function isolatedPath(path: string): string {
  return path
    .split('/')
    .map((s) => (RTL.test(s) ? `\u2068${s}\u2069` : s))
    .join('/');
}

/**
 * A memory path as its segments, each in its own `<bdi>`, laid out left to right as paths are:
 * an Arabic or Hebrew name reads right to left inside its segment, and no segment (nor the digits
 * and dots of the next one) is moved across a slash. Marked as text the user or Claude wrote
 * (a heading showing a path carries the whole of it as its tooltip, through `isolatedPath`).
 */
export function PathText({ path, className, suffix }: { path: string; className?: string; suffix?: string }) {
  const segments = path.split('/');
  return (
    <span className={className ? `memory-path ${className}` : 'memory-path'} dir="ltr" data-user-text="">
      {segments.map((s, i) => (
        <Fragment key={i}>
          {i > 0 && '/'}
          {s && <bdi>{s}</bdi>}
        </Fragment>
      ))}
      {suffix}
    </span>
  );
}
