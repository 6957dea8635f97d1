import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { bracketMatching, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { EditorState, type Extension } from '@codemirror/state';
import { tags as t } from '@lezer/highlight';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useId, useRef } from 'react';

/**
 * Markdown colours from the app's theme variables, so markers (#, *, `) and
 * links stay readable in light and dark (CodeMirror's default style is made
 * for a light page: its markers fall to 1.8:1 on the dark one).
 */
const markdownStyle = HighlightStyle.define([
  { tag: t.heading, fontWeight: 'bold' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strong, fontWeight: 'bold' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: [t.link, t.url], color: 'var(--accent)', textDecoration: 'underline' },
  { tag: [t.processingInstruction, t.meta, t.contentSeparator, t.quote], color: 'var(--muted)' },
  { tag: t.monospace, fontFamily: 'ui-monospace, monospace' },
]);

/**
 * Line numbers, undo history, search (Mod-F) and Markdown highlighting. Tab is
 * left to the browser so keyboard users can leave the editor (a Tab typed into
 * Markdown would also turn a heading into a code block); indenting is on
 * Mod-] and Mod-[ (defaultKeymap), as the hint under the toolbar says.
 */
const essentials: Extension = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightActiveLine(),
  drawSelection(),
  history(),
  bracketMatching(),
  search({ top: true }),
  highlightSelectionMatches(),
  syntaxHighlighting(markdownStyle),
  // Mod-/ (toggle comment) is left out: Ctrl+/ shows the app's shortcut sheet everywhere, the editor included.
  keymap.of([...defaultKeymap.filter((b) => b.key !== 'Mod-/'), ...historyKeymap, ...searchKeymap]),
];

/** Mod-S saves. */
function saveKeymap(onSave: () => void): Extension {
  return keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (onSave(), true) }]);
}

/** Reports every edit so the pane can mark unsaved changes. */
function changeListener(onChange: (text: string) => void): Extension {
  return EditorView.updateListener.of((u) => {
    if (u.docChanged) onChange(u.state.doc.toString());
  });
}

// Two editors can be open at once (the Memories tab and the pane beside the chat), so each names its own hint.
const accessibleName = (label: string, hint: string): Extension => EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': hint });

/** The memory editor: CodeMirror 6 with Markdown, line numbers and search , built from small extensions. */
export function Editor({ docKey, text, onChange, onSave, focusOnMount }: { docKey: string; text: string; onChange: (text: string) => void; onSave: () => void; focusOnMount?: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const view = useRef<EditorView | undefined>(undefined);
  const hadFocus = useRef(false);
  const handlers = useRef({ onChange, onSave });
  handlers.current = { onChange, onSave };

  useEffect(() => {
    const state = EditorState.create({
      doc: text,
      extensions: [
        saveKeymap(() => handlers.current.onSave()),
        essentials,
        markdown(),
        EditorView.lineWrapping,
        changeListener((t) => handlers.current.onChange(t)),
        accessibleName('Editor', hintId),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    // A fresh document in place of one being typed in (the file was renamed or reloaded) keeps the focus there; so does
    // the editor coming back after a merge view the user closed.
    if (hadFocus.current || focusOnMount) view.current.focus();
    return () => {
      hadFocus.current = view.current?.hasFocus ?? false;
      view.current?.destroy();
      view.current = undefined;
    };
    // A new document (another file, or a reload) gets a fresh editor; typing does not.
  }, [docKey]);

  return (
    <div className="editor-column">
      <p className="editor-hint" id={hintId}>
        Tab leaves the editor · Ctrl+] indents · Ctrl+[ outdents · Ctrl+S saves
      </p>
      <div className="editor" ref={host} data-doc={docKey} />
    </div>
  );
}
