import type { Entry } from '../../../electron/shared/ipc';

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
const when = (ms: number) => new Date(ms).toLocaleString();

/** The /memories tree: folders and files with sizes and modified times. Nothing is decrypted until a file is opened. */
export function Tree({ entries, selected, onSelect }: { entries: Entry[]; selected: string | undefined; onSelect: (e: Entry) => void }) {
  if (entries.length === 0) return <p className="empty">No memories yet. Claude adds them as you chat, or create one with “New memory”.</p>;
  return (
    <ul role="tree" aria-label="Memories" className="tree">
      {entries.map((e) => {
        const depth = e.path.split('/').length - 3;
        const name = e.path.slice(e.path.lastIndexOf('/') + 1);
        return (
          <li
            key={e.path}
            role="treeitem"
            aria-selected={selected === e.path}
            aria-level={depth + 1}
            tabIndex={selected === e.path ? 0 : -1}
            className={`${e.kind} ${selected === e.path ? 'selected' : ''}`}
            style={{ paddingLeft: `${0.5 + depth * 1.1}rem` }}
            onClick={() => onSelect(e)}
            onKeyDown={(k) => (k.key === 'Enter' || k.key === ' ') && onSelect(e)}
            title={e.path}
          >
            <span className="name">
              {e.kind === 'dir' ? '▸ ' : ''}
              {name}
            </span>
            <span className="meta">
              {e.kind === 'file' ? `${size(e.size)} · ` : ''}
              {when(e.modified)}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
