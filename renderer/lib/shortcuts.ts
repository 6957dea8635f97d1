/**
 * Every keyboard shortcut of the app, in one table: the shortcut sheet (Ctrl+/)
 * lists it, and the window-wide handlers match keys against it, so what the
 * sheet says and what the keys do cannot drift apart. Keys handled inside one
 * widget (the memory tree, the editor, the splitters) are listed here too; their
 * widgets keep their own switch, as each key there acts on the row or text at hand.
 */

/** One way to press a shortcut: the key (`KeyboardEvent.key`, letters lower case) and its modifiers. Ctrl means Cmd on a Mac. */
export interface Combo {
  key: string;
  mod?: boolean;
  shift?: boolean;
}

export type ShortcutGroup = 'Anywhere' | 'Chat' | 'Memories' | 'Lists, tabs and dialogs';

export interface Shortcut {
  id: string;
  group: ShortcutGroup;
  /** What it does, as the sheet says it. */
  does: string;
  /** The keys, each alternative as it is shown; `combos` below are the ones the window-wide handlers match. */
  keys: string[];
  combos?: Combo[];
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = isMac ? 'Cmd' : 'Ctrl';
/** A combo as a person reads it: "Ctrl+Shift+L". */
export function comboText(c: Combo): string {
  const key = c.key.length === 1 ? c.key.toUpperCase() : c.key === 'Escape' ? 'Esc' : c.key;
  return [c.mod ? MOD : '', c.shift ? 'Shift' : '', key].filter(Boolean).join('+');
}
const combo = (key: string, mod = false, shift = false): Combo => ({ key, ...(mod ? { mod } : {}), ...(shift ? { shift } : {}) });
const bound = <I extends string>(id: I, group: ShortcutGroup, does: string, combos: Combo[], extra: string[] = []): Shortcut & { id: I } => ({ id, group, does, combos, keys: [...combos.map(comboText), ...extra] });
const listed = <I extends string>(id: I, group: ShortcutGroup, does: string, keys: string[]): Shortcut & { id: I } => ({ id, group, does, keys: keys.map((k) => k.replace(/^Ctrl\+/, `${MOD}+`)) });

export const SHORTCUTS = [
  bound('palette', 'Anywhere', 'Go to a conversation, memory, project or setting', [combo('k', true)]),
  // `?` works only outside text boxes (there it is a character); the sheet says so.
  bound('shortcuts', 'Anywhere', 'Show these keyboard shortcuts', [combo('/', true)], ['? (outside a text box)']),
  bound('tabChat', 'Anywhere', 'Show the chat', [combo('1', true)]),
  bound('tabMemories', 'Anywhere', 'Show the memories', [combo('2', true)]),
  bound('tabSettings', 'Anywhere', 'Show the settings', [combo('3', true)]),
  bound('memoryPane', 'Anywhere', 'Show or hide memory beside the chat', [combo('m', true, true)]),
  bound('lock', 'Anywhere', 'Lock the vault', [combo('l', true, true)]),
  listed('skip', 'Anywhere', 'First Tab: skip to the message box', ['Tab']),
  bound('newConversation', 'Chat', 'New conversation', [combo('n', true)]),
  listed('send', 'Chat', 'Send the message', ['Enter']),
  listed('newline', 'Chat', 'New line in the message', ['Shift+Enter']),
  bound('stop', 'Chat', 'Stop the reply Claude is writing', [combo('Escape')]),
  // The editor of a sent message (Edit on it, or "Edit last message") handles its own keys, as the message box does.
  listed('editSend', 'Chat', 'In a message being edited: send it as a new version', ['Enter']),
  listed('editCancel', 'Chat', 'In a message being edited: cancel, back to its Edit button', ['Esc']),
  listed('treeMove', 'Memories', 'Move in the list of memories', ['Up', 'Down', 'Home', 'End']),
  listed('treeFolder', 'Memories', 'Open or close a folder, go to its parent', ['Right', 'Left']),
  listed('treeOpen', 'Memories', 'Open the memory or folder', ['Enter', 'Space']),
  listed('treeRename', 'Memories', 'Rename the memory or folder', ['F2']),
  listed('treeDelete', 'Memories', 'Delete (asks first; it goes to the trash)', ['Delete']),
  listed('save', 'Memories', 'Save the memory being edited', ['Ctrl+S']),
  listed('find', 'Memories', 'Find in the memory being edited', ['Ctrl+F']),
  listed('undo', 'Memories', 'Undo, redo in the editor', ['Ctrl+Z', 'Ctrl+Y', 'Ctrl+Shift+Z']),
  listed('indent', 'Memories', 'Indent, outdent lines in the editor', ['Ctrl+]', 'Ctrl+[']),
  listed('leaveEditor', 'Memories', 'Leave the editor', ['Tab']),
  listed('tabs', 'Lists, tabs and dialogs', 'Move between the Chat, Memories and Settings tabs', ['Left', 'Right', 'Home', 'End']),
  listed('splitter', 'Lists, tabs and dialogs', 'Resize a pane from its divider', ['Left', 'Right', 'Home', 'End']),
  listed('palette-move', 'Lists, tabs and dialogs', 'Choose in the “Go to” list, and go', ['Up', 'Down', 'Enter']),
  listed('close', 'Lists, tabs and dialogs', 'Close a dialog or cancel a question', ['Esc']),
] as const;

export type ShortcutId = (typeof SHORTCUTS)[number]['id'];

/** True when `e` presses one of the shortcut's combos (Ctrl, or Cmd on a Mac, for `mod`; no other modifier). */
export function matches(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>, id: ShortcutId): boolean {
  const s: Shortcut | undefined = SHORTCUTS.find((x) => x.id === id);
  // Cmd on a Mac, Ctrl elsewhere: a Mac's Ctrl keys are the text fields' own (Ctrl+N moves down a line).
  const mod = isMac ? e.metaKey : e.ctrlKey;
  // Shifted letters arrive upper case; `/` with Shift is `?` on many layouts, which is the sheet's other key.
  return (s?.combos ?? []).some((c) => e.key.toLowerCase() === c.key.toLowerCase() && mod === Boolean(c.mod) && e.shiftKey === Boolean(c.shift) && !e.altKey);
}

/** The keys of a shortcut as shown in titles and hints: "Ctrl+K". */
export function keysOf(id: ShortcutId): string {
  return SHORTCUTS.find((s) => s.id === id)?.keys[0] ?? '';
}

/** True when keys typed at `target` are text (a text box, the editor): `?` there is a question mark, not the sheet. */
export function inTextBox(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(target.type);
}

/** True while a modal dialog (the palette, the sheet) is open: the page behind it takes no shortcuts but Lock. */
export function modalOpen(): boolean {
  return document.querySelector('dialog[open]') !== null;
}
