/** The one table of shortcuts: the sheet lists it, the window's handlers match keys against it. */
import { describe, expect, it } from 'vitest';
import { keysOf, matches, SHORTCUTS, type Shortcut } from '../../../renderer/lib/shortcuts';

const key = (k: string, mods: { ctrl?: boolean; shift?: boolean; alt?: boolean; meta?: boolean } = {}) => ({ key: k, ctrlKey: !!mods.ctrl, shiftKey: !!mods.shift, altKey: !!mods.alt, metaKey: !!mods.meta });

describe('shortcuts', () => {
  it('match their exact keys and nothing else', () => {
    expect(matches(key('k', { ctrl: true }), 'palette')).toBe(true);
    expect(matches(key('K', { ctrl: true }), 'palette')).toBe(true);
    expect(matches(key('k'), 'palette')).toBe(false);
    expect(matches(key('k', { ctrl: true, shift: true }), 'palette')).toBe(false);
    expect(matches(key('k', { ctrl: true, alt: true }), 'palette')).toBe(false);
    expect(matches(key('L', { ctrl: true, shift: true }), 'lock')).toBe(true);
    expect(matches(key('l', { ctrl: true }), 'lock')).toBe(false);
    expect(matches(key('/', { ctrl: true }), 'shortcuts')).toBe(true);
    expect(matches(key('Escape'), 'stop')).toBe(true);
    expect(matches(key('n', { ctrl: true }), 'newConversation')).toBe(true);
    // Ctrl+K no longer makes a conversation: it opens "Go to".
    expect(matches(key('k', { ctrl: true }), 'newConversation')).toBe(false);
  });

  it('no two window-wide shortcuts share keys, and each is shown as it is pressed', () => {
    const bound = (SHORTCUTS as readonly Shortcut[]).flatMap((s) => (s.combos ?? []).map((c) => JSON.stringify(c)));
    expect(new Set(bound).size).toBe(bound.length);
    expect(new Set(SHORTCUTS.map((s) => s.id)).size).toBe(SHORTCUTS.length);
    expect(keysOf('palette')).toBe('Ctrl+K');
    expect(keysOf('lock')).toBe('Ctrl+Shift+L');
    expect(keysOf('shortcuts')).toBe('Ctrl+/');
    expect(keysOf('stop')).toBe('Esc');
    expect(SHORTCUTS.find((s) => s.id === 'shortcuts')!.keys).toContain('? (outside a text box)');
  });
});
