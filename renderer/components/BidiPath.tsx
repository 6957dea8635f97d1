/**
 * A memory's path as segments that do not reorder each other (issue 21): the path reads left to
 * right, folder by folder, and each name is isolated (`<bdi>`), so an Arabic or Hebrew name reads
 * right to left inside its own segment without dragging its neighbours or the slashes along.
 */
export function BidiPath({ path, className }: { path: string; className?: string | undefined }) {
  const parts = path.split('/');
  return (
    <span className={className ? `bidi-path ${className}` : 'bidi-path'} dir="ltr" data-user-text="">
      {parts.map((part, i) => (
        // Index keys: the segments of one path never move, and two may share a name.
        <span key={i}>
          {i > 0 && '/'}
          {part && <bdi>{part}</bdi>}
        </span>
      ))}
    </span>
  );
}
