import { useEffect, useId, useRef } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { keysOf } from '../../lib/shortcuts';
import { EditorPane } from '../memories/EditorPane';
import { FolderPane } from '../memories/FolderPane';
import { DiscardDialog, useMemoryNavigation } from '../memories/navigation';
import { projectName, useMemoryTree, useProjects } from '../memories/projects';
import { Tree } from '../memories/Tree';

/** A file to show, asked for by a chip's "Open in editor"; `n` changes with each ask. */
export type PaneRequest = { project: string; path: string; n: number };

/**
 * The memory tree and editor beside the conversation, for the open
 * conversation's project. It follows that project while nothing is unsaved; an
 * unsaved edit keeps its file (and project) open until the user saves or
 * agrees to drop it. It stays mounted while closed, so closing it loses nothing.
 */
export function MemoryPane({ id, shown, project: conversationProject, request, width, onClose }: { id: string; shown: boolean; project: string; request: PaneRequest | undefined; width: number; onClose: () => void }) {
  const { t } = useTranslation('chat');
  const { project, selected, setSelected, ask, leaving, setLeaving, dirty, opened, apply, go, goRef } = useMemoryNavigation({ project: request?.project ?? conversationProject, path: request?.path });
  // Listed again when shown and when the conversation's project changes: a project made since then has a name to show.
  const [projects] = useProjects(`${shown}:${project}:${conversationProject}`);
  const { entries, error, refresh } = useMemoryTree(project);
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);

  // A chip asks for a file: list its project again too, so a project deleted meanwhile is reported, not shown stale.
  useEffect(() => {
    if (!request) return;
    goRef.current({ project: request.project, path: request.path });
    refresh();
  }, [request, refresh]);
  // Another conversation, another project: follow it, unless that would drop an unsaved edit.
  useEffect(() => {
    if (!dirty.current) apply({ project: conversationProject });
  }, [conversationProject, apply]);

  const entry = selected ? entries.find((e) => e.path === selected) : undefined;
  const name = projectName(projects, project);
  const openName = projectName(projects, conversationProject);
  return (
    <aside id={id} className="memory-pane" aria-labelledby={headingId} hidden={!shown} style={{ '--pane-w': `${width}px` } as React.CSSProperties}>
      <div className="memory-pane-head">
        <h2 id={headingId} tabIndex={-1} ref={heading}>
          <Trans t={t} i18nKey="pane.title" values={{ name }} components={[<bdi />]} />
        </h2>
        <button onClick={onClose} title={t('pane.closeTitle', { keys: keysOf('memoryPane') })}>
          {t('pane.close')}
        </button>
      </div>
      {project !== conversationProject && (
        <div className="banner" role="status">
          <p>
            <Trans t={t} i18nKey="pane.otherProject" values={{ shown: name, open: openName }} components={[<bdi />, <bdi />]} />
          </p>
          <button onClick={() => go({ project: conversationProject })}>
            <Trans t={t} i18nKey="pane.show" values={{ name: openName }} components={[<bdi />]} />
          </button>
        </div>
      )}
      {error && (
        // Focusable, so "Open in editor" can put focus on why nothing opened.
        <p role="alert" className="error pane-error" tabIndex={-1}>
          {error}
        </p>
      )}
      {/* A list that fails (the project was deleted meanwhile) hides the tree, never an unsaved edit: its text stays to copy. */}
      {(!error || dirty.current) && (
        <>
          {!error && (
            <div className="memory-pane-tree">
              {entries.length === 0 ? (
                <p className="empty">
                  <Trans t={t} i18nKey="pane.empty" values={{ name }} components={[<bdi />]} />
                </p>
              ) : null}
              {/* Only while shown: a hidden tree would still hold a Tab stop. The editor below stays mounted, so closing loses nothing. */}
              {shown && <Tree key={project} entries={entries} selected={selected} onSelect={(e) => go({ project, path: e.path })} onRename={(e) => go({ project, path: e.path, ask: 'rename' })} onDelete={(e) => go({ project, path: e.path, ask: 'delete' })} />}
            </div>
          )}
          {leaving && (
            <DiscardDialog
              onKeep={() => setLeaving(undefined)}
              onDiscard={() => {
                apply(leaving);
                // The control that asked ("Show …") may be gone with the switch: then focus goes to the pane's heading, not the page body.
                requestAnimationFrame(() => {
                  if (!document.activeElement || document.activeElement === document.body) heading.current?.focus();
                });
              }}
            />
          )}
          {selected && entry?.kind === 'dir' ? (
            <FolderPane
              key={`${project}:${selected}`}
              request={ask}
              path={selected}
              project={project}
              count={entries.filter((e) => e.path.startsWith(selected + '/')).length}
              onRenamed={(to) => {
                setSelected(to);
                refresh();
              }}
              onDeleted={() => setSelected(undefined)}
            />
          ) : selected ? (
            <EditorPane
              key={`${project}:${opened}`}
              request={ask}
              path={selected}
              project={project}
              onDirty={(d) => (dirty.current = d)}
              onRenamed={(to) => {
                // Still unsaved if it was: the editor stays, with the typed text, under the new path.
                setSelected(to);
                refresh();
              }}
              onDeleted={() => {
                dirty.current = false;
                setSelected(undefined);
              }}
            />
          ) : (
            <p className="empty">{t('pane.choose')}</p>
          )}
        </>
      )}
    </aside>
  );
}
