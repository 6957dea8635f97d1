import { diffLines } from 'diff';

/** A line diff of two texts: removed lines, then added, with unchanged context. */
export function Diff({ before, after, label }: { before: string; after: string; label?: string }) {
  const parts = diffLines(before, after);
  return (
    <pre className="diff" aria-label={label ?? 'Changes'}>
      {parts.map((p, i) => (
        <span key={i} className={p.added ? 'added' : p.removed ? 'removed' : 'same'}>
          {p.value
            .replace(/\n$/, '')
            .split('\n')
            .map((line) => `${p.added ? '+ ' : p.removed ? '- ' : '  '}${line}`)
            .join('\n') + '\n'}
        </span>
      ))}
    </pre>
  );
}
