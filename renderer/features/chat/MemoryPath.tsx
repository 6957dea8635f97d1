import { Fragment } from 'react';

/**
 * A memory path as its segments: the path reads left to right whatever the
 * sentence around it, and each name is isolated, so an Arabic or Hebrew folder
 * name reads right to left inside its own segment without reordering the
 * others. Drawn from `path`, not from children (a <Trans> slot's text is the
 * same path, for the plain-text form of the sentence).
 */
export function MemoryPath({ path, code = false }: { path: string; code?: boolean; children?: React.ReactNode }) {
  const segments = (
    <bdi dir="ltr" className="memory-path">
      {path.split('/').map((segment, i) => (
        <Fragment key={i}>
          {i > 0 && '/'}
          {segment && <bdi>{segment}</bdi>}
        </Fragment>
      ))}
    </bdi>
  );
  return code ? <code>{segments}</code> : segments;
}

/** A sentence with <Trans> slots (`<0>…</0>`) said as plain text, for a screen reader's announcement or a title. */
export function plain(text: string): string {
  return text.replace(/<\/?\d+\/?>/g, '');
}
