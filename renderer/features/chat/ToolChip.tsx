import { createContext, memo, useContext, useState } from 'react';
import { Diff } from '../../components/Diff';
import { call, messageOf } from '../../lib/api';

export interface ToolView {
  id: string;
  command: string;
  path: string;
  newPath?: string;
  content?: string;
  isError?: boolean;
  diff?: { before: string; after: string };
  version?: number;
  running?: boolean;
}

const VERBS: Record<string, string> = { view: 'viewed', create: 'created', str_replace: 'edited', insert: 'edited', delete: 'deleted', rename: 'renamed' };

/** What a chip says: the operation and its path(s). */
export function toolLabel(tool: ToolView): string {
  const verb = tool.running ? `${tool.command}…` : tool.isError ? `failed to ${tool.command}` : (VERBS[tool.command] ?? tool.command);
  return `${verb} ${tool.path}${tool.newPath ? ` → ${tool.newPath}` : ''}`;
}

/** Which chips are expanded, by tool call id: a chip keeps its state when the streaming reply becomes the saved one. */
const expanded = new Set<string>();

/** The open conversation's project (absent: the first), whose memory the chips' paths name. */
export const ChipProject = createContext<string | undefined>(undefined);

/** One memory operation in the transcript: expandable to the exact result Claude got, with a diff, a link to the file and an undo. */
export const ToolChip = memo(function ToolChip({ tool, onOpen }: { tool: ToolView; onOpen: (path: string, project?: string) => void }) {
  const project = useContext(ChipProject);
  const [open, setOpenState] = useState(() => expanded.has(tool.id));
  const setOpen = (next: boolean) => {
    if (next) expanded.add(tool.id);
    else expanded.delete(tool.id);
    setOpenState(next);
  };
  const [undo, setUndo] = useState<string>();
  const label = toolLabel(tool);
  const target = tool.newPath ?? tool.path;
  const canUndo = !tool.isError && !tool.running && tool.version !== undefined && ['create', 'str_replace', 'insert'].includes(tool.command);
  return (
    <div className={`chip ${tool.isError ? 'failed' : ''}`}>
      <button className="chip-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        {label}
      </button>
      {open && (
        <div className="chip-body">
          {tool.content !== undefined && (
            <pre className="tool-result" aria-label="Result sent to Claude">
              {tool.content}
            </pre>
          )}
          {tool.diff && <Diff before={tool.diff.before} after={tool.diff.after} label={`Changes to ${target}`} />}
          <div className="row">
            {/* The path names a file in the conversation's project, so it opens there (a same-named file elsewhere is another file). */}
            {tool.command !== 'delete' && <button onClick={() => onOpen(target, project ?? 'default')}>Open in editor</button>}
            {canUndo && (
              <button
                onClick={() =>
                  void call('chatUndo', { path: target, version: tool.version!, ...(project ? { project } : {}) }).then(
                    () => setUndo('Undone: the previous version is back.'),
                    (e: unknown) => setUndo(messageOf(e)),
                  )
                }
              >
                Undo this change
              </button>
            )}
          </div>
          {undo && <p role="status">{undo}</p>}
        </div>
      )}
    </div>
  );
});
