import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { bracketMatching, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { tags as t } from '@lezer/highlight';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import type { TFunction } from 'i18next';
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { keysOf } from '../../lib/shortcuts';

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
export const essentials: Extension = [
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
export function saveKeymap(onSave: () => void): Extension {
  return keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (onSave(), true) }]);
}

/** Reports every edit so the pane can mark unsaved changes. */
export function changeListener(onChange: (text: string) => void): Extension {
  return EditorView.updateListener.of((u) => {
    if (u.docChanged) onChange(u.state.doc.toString());
  });
}

// Two editors can be open at once (the Memories tab and the pane beside the chat), so each names its own hint.
const accessibleName = (label: string, hint: string): Extension => EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': hint });

/** CodeMirror's own words (the search and go-to-line panels, what it announces) in the window's language. */
export function phrases(t: TFunction<'memories'>): Extension {
  return EditorState.phrases.of({
    Find: t('editor.cm.find'),
    Replace: t('editor.cm.replace'),
    next: t('editor.cm.next'),
    previous: t('editor.cm.previous'),
    all: t('editor.cm.all'),
    'match case': t('editor.cm.matchCase'),
    regexp: t('editor.cm.regexp'),
    'by word': t('editor.cm.byWord'),
    replace: t('editor.cm.replaceOne'),
    'replace all': t('editor.cm.replaceAll'),
    close: t('editor.cm.close'),
    'current match': t('editor.cm.currentMatch'),
    'on line': t('editor.cm.onLine'),
    'replaced $ matches': t('editor.cm.replacedMatches'),
    'replaced match on line $': t('editor.cm.replacedMatchOnLine'),
    'Go to line': t('editor.cm.goToLine'),
    go: t('editor.cm.go'),
    'Selection deleted': t('editor.cm.selectionDeleted'),
    'Control character': t('editor.cm.controlCharacter'),
  });
}

/** What follows the window's language: the editor's name and CodeMirror's words. */
const language = (t: TFunction<'memories'>, hint: string): Extension => [accessibleName(t('editor.label'), hint), phrases(t)];

/** The memory editor: CodeMirror 6 with Markdown, line numbers and search , built from small extensions. */
export function Editor({ docKey, text, onChange, onSave, focusOnMount }: { docKey: string; text: string; onChange: (text: string) => void; onSave: () => void; focusOnMount?: boolean }) {
  const { t, i18n } = useTranslation('memories');
  const host = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const words = useRef(new Compartment());
  const tNow = useRef(t);
  tNow.current = t;
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
        // Each line takes the direction of its first letter (CSS below): an Arabic or Hebrew line reads right to left.
        EditorView.perLineTextDirection.of(true),
        changeListener((t) => handlers.current.onChange(t)),
        words.current.of(language(tNow.current, hintId)),
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
  // A language switch renames the editor and its panels in place, keeping the document and the cursor.
  useEffect(() => {
    view.current?.dispatch({ effects: words.current.reconfigure(language(t, hintId)) });
  }, [t, i18n.language, hintId]);

  return (
    <div className="editor-column">
      <p className="editor-hint" id={hintId}>
        {t('editor.hint', { tab: 'Tab', indent: 'Ctrl+]', outdent: 'Ctrl+[', save: keysOf('save') })}
      </p>
      <div className="editor" ref={host} data-doc={docKey} />
    </div>
  );
}
