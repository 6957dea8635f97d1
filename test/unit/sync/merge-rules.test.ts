/** How concurrent settings and projects merge (docs/sync-design.md §3): deterministic, protective, and nothing dropped silently. */
import { describe, expect, it } from 'vitest';
import { displayProjects, newestRule, projectRule, ruleFor, settingsRule, type Head } from '../../../electron/core/vault/sync/merge-rules';
import { defaultSettings } from '../../../electron/shared/settings';

const OLD = `${'1'.repeat(32)}:5`;
const NEW = `${'2'.repeat(32)}:5`;
/** Two heads: `older` written first, `newer` later (by HLC). */
const heads = (older: unknown, newer: unknown): Head[] => [
  { vid: OLD, h: [1000, 0], value: older },
  { vid: NEW, h: [2000, 0], value: newer },
];

describe('settings, field by field against the base', () => {
  const base = defaultSettings();

  it('keeps a field changed on one side only, whichever side is newer', () => {
    const laptop = { ...base, model: 'claude-opus' };
    const desktop = { ...base, thinking: true };
    expect(settingsRule('settings', base, heads(laptop, desktop))).toEqual({ value: { ...base, model: 'claude-opus', thinking: true }, notices: [] });
    expect(settingsRule('settings', base, heads(desktop, laptop)).value).toEqual({ ...base, model: 'claude-opus', thinking: true });
  });

  it('merges nested fields one by one', () => {
    const a = { ...base, contextManagement: { ...base.contextManagement, enabled: false } };
    const b = { ...base, contextManagement: { ...base.contextManagement, keepToolUses: 7 } };
    expect(settingsRule('settings', base, heads(a, b)).value).toEqual({ ...base, contextManagement: { ...base.contextManagement, enabled: false, keepToolUses: 7 } });
  });

  // field, base value, the two concurrent values (older first), the value kept: the protective one wherever a field weakens a protection.
  const table: Array<[string, unknown, unknown, unknown, unknown]> = [
    // A boolean can only differ on both sides from a base that lacks it.
    ['approvalMode', undefined, true, false, true],
    ['approvalMode', undefined, false, true, true],
    ['guardMode', 'redact', 'block', 'allow', 'block'],
    ['guardMode', 'block', 'allow', 'redact', 'redact'],
    ['autoLockMinutes', 10, 5, 30, 5],
    ['autoLockMinutes', 10, 0, 30, 30],
    ['autoLockMinutes', 10, 60, 0, 60],
    ['historyDepth', 20, 50, 5, 50],
    ['historyDepth', 20, 5, 50, 50],
    ['maxToolRounds', 30, 100, 10, 10],
    ['mcpAccess', 'read-only', 'off', 'read-write', 'off'],
    // Not a protection: the newer change wins.
    ['model', 'm0', 'm1', 'm2', 'm2'],
    ['thinking', false, true, true, true],
  ];
  it.each(table)('%s: base %j, changed to %j and %j at once → %j', (field, was, older, newer, kept) => {
    const b = { ...base, [field]: was };
    const r = settingsRule('settings', b, heads({ ...b, [field]: older }, { ...b, [field]: newer }));
    expect((r.value as Record<string, unknown>)[field]).toBe(kept);
    if (older === newer) expect(r.notices).toEqual([]);
    else expect(r.notices).toEqual([{ key: 'settings', field, kept: kept === newer ? NEW : OLD, lost: kept === newer ? OLD : NEW, what: 'value' }]);
  });

  it('a field changed on one side only is taken as changed, even when it weakens a protection (the device that changed it asked first)', () => {
    const r = settingsRule('settings', { ...base, approvalMode: true }, heads({ ...base, approvalMode: false }, { ...base, approvalMode: true, model: 'x' }));
    expect(r.value).toMatchObject({ approvalMode: false, model: 'x' });
    expect(r.notices).toEqual([]);
  });

  it('without a common base (both devices saved their first settings), every differing field is a change', () => {
    const r = settingsRule('settings', undefined, heads({ ...base, guardMode: 'allow', model: 'a' }, { ...base, guardMode: 'redact', model: 'b' }));
    expect(r.value).toMatchObject({ guardMode: 'redact', model: 'b' });
    expect(r.notices.map((n) => n.field).sort()).toEqual(['guardMode', 'model']);
  });

  it('is the same whatever order the heads come in', () => {
    const a = { ...base, guardMode: 'allow', model: 'a', autoLockMinutes: 0 };
    const b = { ...base, guardMode: 'redact', model: 'b', autoLockMinutes: 30 };
    expect(settingsRule('settings', base, heads(a, b).reverse())).toEqual(settingsRule('settings', base, heads(a, b)));
  });
});

describe('projects, one key per project', () => {
  const base = { name: 'Work', created: 5 };

  it('a rename on one side and a delete on the other: the project stays, renamed, and the delete is a notice', () => {
    const r = projectRule('projects/0123456789abcdef', base, heads({ ...base, name: 'Job' }, { ...base, deleted: 99 }));
    expect(r.value).toEqual({ name: 'Job', created: 5 });
    expect(r.notices).toEqual([{ key: 'projects/0123456789abcdef', kept: OLD, lost: NEW, what: 'delete' }]);
  });

  it('renamed on both sides: the newer name, the other a notice', () => {
    const r = projectRule('projects/x', base, heads({ ...base, name: 'Job' }, { ...base, name: 'Office' }));
    expect(r.value).toEqual({ name: 'Office', created: 5 });
    expect(r.notices).toEqual([{ key: 'projects/x', field: 'name', kept: NEW, lost: OLD, what: 'value' }]);
  });

  it('deleted on both sides: deleted, at the later time', () => {
    expect(projectRule('projects/x', base, heads({ ...base, deleted: 7 }, { ...base, deleted: 3 })).value).toEqual({ name: 'Work', created: 5, deleted: 7 });
  });

  it('two live projects with one name: the later one (by created, then id) is shown with a suffix, the first project first', () => {
    const shown = displayProjects([
      { id: 'fedcba9876543210', name: 'work', created: 10 },
      { id: '0123456789abcdef', name: 'Work', created: 10 },
      { id: 'default', name: 'Default', created: 0 },
      { id: '1111111111111111', name: 'WORK', created: 3 },
      { id: '2222222222222222', name: 'Work (2)', created: 1 },
    ]);
    expect(shown.map((p) => `${p.id} ${p.name}`)).toEqual(['default Default', '2222222222222222 Work (2)', '1111111111111111 WORK', '0123456789abcdef Work (3)', 'fedcba9876543210 work (4)']);
  });
});

describe('other keys', () => {
  it('the newest value wins and the other is a notice; equal values make none', () => {
    expect(newestRule('models', undefined, heads(['a'], ['b']))).toEqual({ value: ['b'], notices: [{ key: 'models', kept: NEW, lost: OLD, what: 'value' }] });
    expect(newestRule('models', undefined, heads(['a'], ['a'])).notices).toEqual([]);
    expect(ruleFor('secrets/api-key')).toBe(newestRule);
    expect(ruleFor('settings')).toBe(settingsRule);
    expect(ruleFor('projects/0123456789abcdef')).toBe(projectRule);
  });
});
