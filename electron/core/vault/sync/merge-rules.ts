/**
 * How concurrent values of one internal key merge (docs/sync-design.md §3),
 * registered per key prefix. Pure, and the same on every device: a merge
 * rule is part of the vault format (RULES_VERSION), so changing one is a
 * format change.
 *
 * - default: the newest head (by HLC, then device and seq) wins;
 * - `settings`: field by field, three-way against the base: a field changed
 *   on one side wins; changed on several, the protective value wins for the
 *   fields that weaken a protection (DESIGN.md §9b), else the newest;
 * - `projects/<id>`: the name three-way (newest among the changed), the
 *   earliest `created`, and a live project wins over a delete.
 * Every value that lost is reported as a notice.
 */
import { sameName, withSuffix } from '../../projects/names';
import { compareStamped, type Hlc } from './hlc';
import type { Vid } from './ids';

export const RULES_VERSION = 1;

/** One concurrent value of a key, parsed. */
export interface Head {
  vid: Vid;
  h: Hlc;
  value: unknown;
}

/** A value that lost a merge. `field`: for field-wise rules, the field (dotted for nested ones). */
export interface MergeNotice {
  key: string;
  field?: string;
  /** The head whose value was kept (the newest holding it), and the one that lost. */
  kept: Vid;
  lost: Vid;
  what: 'value' | 'delete';
}

export interface MergeResult {
  value: unknown;
  notices: MergeNotice[];
}

export type MergeRule = (key: string, base: unknown, heads: Head[]) => MergeResult;

const newestFirst = (heads: Head[]) => [...heads].sort((a, b) => compareStamped(b, a));
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The newest head wins; every other head with another value is a notice. */
export const newestRule: MergeRule = (key, _base, heads) => {
  const [win, ...rest] = newestFirst(heads);
  return { value: win!.value, notices: rest.filter((h) => !same(h.value, win!.value)).map((h) => ({ key, kept: win!.vid, lost: h.vid, what: 'value' as const })) };
};

/** Ranks a field's values: the highest rank is the most protective. Values it does not know rank lowest. */
type Protect = (v: unknown) => number;
const order =
  (...values: unknown[]): Protect =>
  (v) =>
    values.length - (values.indexOf(v) < 0 ? values.length : values.indexOf(v));
const num = (f: (n: number) => number): Protect => (v) => (typeof v === 'number' && Number.isFinite(v) ? f(v) : -Infinity);

/** The settings fields whose change can weaken a protection (DESIGN.md §9b), and which value protects more. */
export const PROTECTIVE: Record<string, Protect> = {
  approvalMode: order(true, false),
  guardMode: order('block', 'redact', 'allow'),
  // 0 turns auto-lock off: the weakest of all.
  autoLockMinutes: num((n) => (n === 0 ? -Infinity : -n)),
  historyDepth: num((n) => n),
  maxToolRounds: num((n) => -n),
  // "decided in stage 2": who may reach memory through the app's local channel is a protection too.
  mcpAccess: order('off', 'read-only', 'read-write'),
};

/**
 * One field merged three-way: unchanged everywhere → the base; one changed
 * value → it; several → `protect` (most protective, newest among equals) or
 * the newest changed head. Notices name the changed heads that lost.
 */
function mergeField(key: string, field: string, base: unknown, heads: Side[], protect: Protect | undefined, notices: MergeNotice[]): unknown {
  const changed = heads.filter((x) => !same(x.v, base));
  if (!changed.length) return base;
  const ranked = [...changed].sort((a, b) => (protect ? protect(b.v) - protect(a.v) : 0) || compareStamped(b, a));
  const win = ranked[0]!;
  for (const x of changed) if (!same(x.v, win.v)) notices.push({ key, ...(field ? { field } : {}), kept: win.vid, lost: x.vid, what: 'value' });
  return win.v;
}

type Side = { vid: Vid; h: Hlc; v: unknown };

/** Objects merged field by field (nested objects recursively, `path` dotted); a field with a rule, or any other value, as one field. */
function mergeObject(key: string, path: string, base: unknown, heads: Side[], rules: Record<string, Protect>, notices: MergeNotice[]): unknown {
  const objects = !(path in rules) && (base === undefined || isObject(base)) && heads.every((x) => x.v === undefined || isObject(x.v)) && heads.some((x) => isObject(x.v));
  if (!objects) return mergeField(key, path, base, heads, rules[path], notices);
  const at = (v: unknown, f: string) => (isObject(v) ? v[f] : undefined);
  const fields = new Set<string>(isObject(base) ? Object.keys(base) : []);
  for (const x of heads) if (isObject(x.v)) for (const f of Object.keys(x.v)) fields.add(f);
  const out: Record<string, unknown> = {};
  for (const f of [...fields].sort()) {
    const v = mergeObject(key, path ? `${path}.${f}` : f, at(base, f), heads.map((x) => ({ ...x, v: at(x.v, f) })), rules, notices);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/** Settings: field by field, three-way against the base, the protective value winning where both sides changed a weakening field. */
export const settingsRule: MergeRule = (key, base, heads) => {
  const notices: MergeNotice[] = [];
  const value = mergeObject(
    key,
    '',
    base,
    heads.map((x) => ({ vid: x.vid, h: x.h, v: x.value })),
    PROTECTIVE,
    notices,
  );
  return { value, notices };
};

/**
 * A project (`projects/<id>` = `{name, created, deleted?}`): every field
 * three-way (newest among the changed), `created` the earliest, and when any
 * head is live the project is live: each delete it overrides is a notice.
 */
export const projectRule: MergeRule = (key, base, heads) => {
  const notices: MergeNotice[] = [];
  const live = newestFirst(heads).filter((x) => isObject(x.value) && x.value.deleted === undefined);
  const strip = (v: unknown) => (isObject(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'deleted' && k !== 'created')) : v);
  const merged = mergeObject(
    key,
    '',
    strip(base),
    heads.map((x) => ({ vid: x.vid, h: x.h, v: strip(x.value) })),
    {},
    notices,
  ) as Record<string, unknown>;
  const created = heads.map((x) => (isObject(x.value) ? x.value.created : undefined)).filter((c): c is number => typeof c === 'number');
  if (created.length) merged.created = Math.min(...created);
  if (live.length) {
    for (const x of heads) if (isObject(x.value) && x.value.deleted !== undefined) notices.push({ key, kept: live[0]!.vid, lost: x.vid, what: 'delete' });
  } else {
    const deleted = heads.map((x) => (isObject(x.value) ? x.value.deleted : undefined)).filter((d): d is number => typeof d === 'number');
    if (deleted.length) merged.deleted = Math.max(...deleted);
  }
  return { value: merged, notices };
};

type Counts = Record<string, number>;
/** The highest count per device of `counts`' objects (a device missing counts 0). */
function highest(...counts: unknown[]): Counts {
  const out: Counts = {};
  for (const c of counts) if (isObject(c)) for (const [d, n] of Object.entries(c)) if (typeof n === 'number' && n > (out[d] ?? 0)) out[d] = n;
  return out;
}
const most = (xs: unknown[]) => Math.max(0, ...xs.filter((x): x is number => typeof x === 'number'));

/** The other fields of a conversation's head of any layout (a base may be from before the upgrade). */
function metaOf(head: unknown): Record<string, unknown> | undefined {
  if (!isObject(head)) return undefined;
  if (isObject(head.meta)) return head.meta;
  const { messages: _m, transcript: _t, turnStarts: _s, ...meta } = head;
  return meta;
}

/**
 * A conversation's head in scheme 2 (`{v: 2, logs, grew?, legacy?, floor?, entries, meta, deleted?}`, chat/conversation-log2.ts):
 * the other fields three-way (newest among the changed; `created` the earliest, `updated` the latest), every
 * computer's record count (`logs`, `grew`) the highest. A delete stands unless another head counts a record that added
 * something (`grew`; `logs` on a head without it) the delete had not seen:
 * then the conversation is live again from past what the delete saw (`floor`), and each such delete is a notice.
 * `entries` is left out when the heads count different records (the reader counts them).
 * Heads of an earlier layout (a conversation no computer has written since the upgrade) go by the newest.
 */
export const conversationRule: MergeRule = (key, base, heads) => {
  const v2 = (x: unknown): x is Record<string, unknown> & { meta: Record<string, unknown> } => isObject(x) && x.v === 2 && isObject(x.logs) && isObject(x.meta);
  // A single-writer head (`{log, entries, meta}`) beside scheme-2 ones: a format-1 build went on adding to the
  // single-writer log after another computer upgraded. Its records count as that log's (`legacy`), not lost to the newest.
  const asV2 = (x: unknown): unknown => (v2(x) || !isObject(x) || x.v !== undefined || typeof x.log !== 'number' || !isObject(x.meta) ? x : { v: 2, logs: {}, ...(x.log ? { legacy: x.log } : {}), entries: x.entries, meta: x.meta });
  if (!heads.some((x) => v2(x.value)) || !heads.every((x) => v2(asV2(x.value)))) return newestRule(key, base, heads);
  const values = heads.map((x) => asV2(x.value) as Record<string, unknown> & { meta: Record<string, unknown> });
  const notices: MergeNotice[] = [];
  const meta = mergeObject(key, '', metaOf(base), heads.map((x, i) => ({ vid: x.vid, h: x.h, v: values[i]!.meta })), {}, notices) as Record<string, unknown>;
  const created = values.map((v) => v.meta.created).filter((c): c is number => typeof c === 'number');
  if (created.length) meta.created = Math.min(...created);
  if (values.some((v) => typeof v.meta.updated === 'number')) meta.updated = most(values.map((v) => v.meta.updated));
  const logs = highest(...values.map((v) => v.logs));
  const legacy = most(values.map((v) => v.legacy));
  const deletes = heads.filter((_, i) => isObject(values[i]!.deleted));
  const seen = highest(...values.map((v) => (isObject(v.deleted) ? v.deleted.seen : undefined)));
  const out: Record<string, unknown> = { v: 2, logs, ...(legacy ? { legacy } : {}), meta };
  let floor = highest(...values.map((v) => v.floor));
  let legacyGone = values.some((v) => v.legacyGone === true);
  // Only a record that added something revives a delete (a rewind alone does not bring back an empty conversation).
  const grew = highest(...values.map((v) => (isObject(v.grew) ? v.grew : v.logs)));
  if (values.some((v) => isObject(v.grew))) out.grew = grew;
  const newer = Object.entries(grew).some(([d, n]) => n > (seen[d] ?? 0));
  const live = heads.filter((_, i) => !isObject(values[i]!.deleted));
  if (deletes.length && (!newer || !live.length)) {
    const dead = values.filter((v) => isObject(v.deleted)).map((v) => v.deleted as Record<string, unknown>);
    out.deleted = { at: most(dead.map((d) => d.at)), seen, ...(most(dead.map((d) => d.legacy)) ? { legacy: most(dead.map((d) => d.legacy)) } : {}) };
    out.entries = 0;
    for (const x of live) notices.push({ key, kept: deletes[0]!.vid, lost: x.vid, what: 'value' });
  } else {
    if (deletes.length) {
      // A computer whose records past the delete added nothing new (a rewind storing kept turns again) brings none back.
      const still = Object.fromEntries(Object.entries(logs).filter(([d, n]) => n > (seen[d] ?? 0) && (grew[d] ?? 0) <= (seen[d] ?? 0)));
      floor = highest(floor, seen, still);
      // The versions of its messages went with the delete (their tails with the log), and the exchanges they are at too.
      delete meta.forks;
      legacyGone ||= values.some((v) => isObject(v.deleted) && typeof v.deleted.legacy === 'number' && v.deleted.legacy > 0);
      for (const x of deletes) notices.push({ key, kept: live[0]!.vid, lost: x.vid, what: 'delete' });
    }
    // The transcript's length, when every live head agrees on the records (else it is counted when read).
    const agreed = new Set(live.map((x) => JSON.stringify(values[heads.indexOf(x)]!.logs)));
    if (!deletes.length && agreed.size === 1) out.entries = most(live.map((x) => values[heads.indexOf(x)]!.entries));
  }
  if (Object.keys(floor).length) out.floor = floor;
  if (legacyGone) out.legacyGone = true;
  return { value: out, notices };
};

/** The rule for a key: by exact key or prefix; the default is newest-wins. */
export function ruleFor(key: string): MergeRule {
  if (key === 'settings') return settingsRule;
  if (key.startsWith('projects/')) return projectRule;
  if (key.startsWith('conversations/')) return conversationRule;
  return newestRule;
}

/** A project as listed. */
export interface ProjectEntry {
  id: string;
  name: string;
  created: number;
}

/**
 * Live projects in list order (the first project, `default`, first, then by
 * `(created, id)`), each name made unique: a project whose name another one
 * earlier in that order already has (case-insensitively) is shown as
 * `name (2)`, `name (3)`… Nothing is written: every device shows the same.
 */
export function displayProjects(projects: readonly ProjectEntry[]): ProjectEntry[] {
  const ordered = [...projects].sort((a, b) => Number(b.id === 'default') - Number(a.id === 'default') || a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const taken: string[] = [];
  return ordered.map((p) => {
    let name = p.name;
    for (let n = 2; taken.some((t) => sameName(t, name)); n++) name = withSuffix(p.name, ` (${n})`);
    taken.push(name);
    return name === p.name ? p : { ...p, name };
  });
}
