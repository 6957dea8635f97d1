/**
 * The computers that write to a vault (format 2, docs/sync-design.md §12.5): their list, a name the user gives one,
 * and "Forget this computer". A computer names itself in the register `device-name:<dev>` (announce2: its host name);
 * a name the user gives it is the register `device-label:<dev>`, shown first, which the computer never writes;
 * forgetting writes a retire op, after which the others stop waiting for that computer before they forget replaced
 * values (kv.ts `superseded`). A forgotten computer that opens the vault again is known again (crdt.ts `isRetired`).
 */
import { regOp } from './sync/build';
import { isRetired } from './sync/crdt';
import { deviceOf, L_DEVICE } from './sync/ids';
import type { SyncSession } from './sync/session2';
import { VaultError } from './types';
import { m } from '../i18n/message';

/** One computer that wrote to the vault. */
export interface DeviceEntry {
  /** Its device id: 32 hex characters. */
  id: string;
  /** The name it gave itself (its host name) or the user gave it; '' when none has arrived yet. */
  name: string;
  /** When it last wrote to the vault, by its own clock (ms since the epoch). */
  lastWrite: number;
  /** The computer this is. */
  current: boolean;
  /** Forgotten by the user ("Forget this computer"), and not back since. */
  forgotten: boolean;
  /**
   * It has not yet seen every change this computer knows of (what it last wrote says so). Values those changes replaced
   * are kept until it has, since it may still change them offline: a computer that is gone for good holds that back
   * until it is forgotten.
   */
  behind: boolean;
}

/** Longest name kept, in characters. */
export const DEVICE_NAME_MAX = 64;

/** The name a computer gives itself (announce2: its host name) and the one a user gave it, which is shown first. */
export const nameKey = (dev: string) => `device-name:${dev}`;
const labelKey = (dev: string) => `device-label:${dev}`;

/** The computers that wrote to the vault, the most recent writer first (this one's own early writes included). */
export function listDevices2(s: SyncSession): DeviceEntry[] {
  const st = s.store.state;
  const me = s.store.device;
  const out: DeviceEntry[] = [];
  for (const [id, info] of st.devices) {
    if (id === L_DEVICE) continue;
    const seen = st.seen.get(id);
    const behind = id !== me && [...st.frontier].some(([d, n]) => d !== id && d !== L_DEVICE && (seen?.get(d) ?? 0) < n);
    const name = shown(s.view.kv.register(labelKey(id), 'newest')) || shown(s.view.kv.register(nameKey(id), 'newest'));
    out.push({ id, name, lastWrite: Math.min(Math.max(info.lastAt, 0), MAX_DATE_MS), current: id === me, forgotten: isRetired(st, id), behind });
  }
  return out.sort((a, b) => b.lastWrite - a.lastWrite || (a.id < b.id ? -1 : 1));
}

/** The one known device `id` names (INVALID when no computer with that id wrote to the vault). */
function known(s: SyncSession, id: string): DeviceEntry {
  const d = listDevices2(s).find((x) => x.id === id);
  if (!d) throw new VaultError('INVALID', m('errors:devices.unknown'));
  return d;
}

/** Trimmed, with runs of white space, control and direction-override characters as one space. */
// eslint-disable-next-line no-control-regex -- control characters are what is replaced
const tidy = (raw: string) => raw.replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]+/gu, ' ').trim();

/**
 * True when `name` shows nothing: only white space, format and default-ignorable characters (zero-width, joiners,
 * variation selectors, Hangul fillers), combining marks with nothing to mark, and the blank Braille pattern.
 */
const blank = (name: string) => /^[\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}\s\u2800]*$/u.test(name);

/** The latest time a Date can hold (ms): another computer's record may carry any safe integer. */
const MAX_DATE_MS = 8.64e15;

/** A name as shown, whoever wrote it (another computer's build may not have tidied it): at most DEVICE_NAME_MAX characters. */
const shown = (v: unknown) => (typeof v === 'string' && !blank(tidy(v)) ? [...tidy(v)].slice(0, DEVICE_NAME_MAX).join('') : '');

/** A name as kept: tidied (above); INVALID when it shows nothing or is too long. */
export function deviceNameOf(raw: string): string {
  const name = tidy(raw);
  if (blank(name)) throw new VaultError('INVALID', m('errors:devices.nameEmpty'));
  if ([...name].length > DEVICE_NAME_MAX) throw new VaultError('INVALID', m('errors:devices.nameLong', { max: DEVICE_NAME_MAX }));
  return name;
}

/** Gives computer `id` the name `raw` (every computer then shows it). Nothing is written when it already has it. */
export async function renameDevice2(s: SyncSession, id: string, raw: string): Promise<void> {
  const name = deviceNameOf(raw);
  if (known(s, id).name === name) return;
  await s.commit(regOp(s.view, labelKey(id), name));
}

/**
 * "Forget this computer": the others stop waiting for it before they forget replaced values, and the list shows it as
 * forgotten. Not this computer (INVALID). Forgetting one already forgotten writes nothing.
 */
export async function forgetDevice2(s: SyncSession, id: string): Promise<void> {
  const d = known(s, id);
  if (d.current) throw new VaultError('INVALID', m('errors:devices.forgetSelf'));
  if (d.forgotten) return;
  await s.commit({ t: 'retire', dev: id });
}

/**
 * This computer went on under a new id (store2.ts `rehome`: its own files went back, or another copy of it wrote under
 * its id): the old id is forgotten, as it will never write again (the others stop waiting for it), and a name the user
 * gave it carries over. Said with the first write under the new id.
 */
export async function succeed2(s: SyncSession, old: string): Promise<void> {
  const me = s.store.device;
  if (!me || !s.store.state.devices.has(old)) return;
  const label = shown(s.view.kv.register(labelKey(old), 'newest'));
  if (label && !shown(s.view.kv.register(labelKey(me), 'newest'))) await s.commit(regOp(s.view, labelKey(me), label));
  // Once: a clone that went on under a new id cannot tell its old id from the original's, which may go on writing as it
  // (and so be known again); retiring it again after each of its writes would only flip it back and forth.
  const retiredByMe = [...(s.store.state.retired.get(old) ?? [])].some((vid) => deviceOf(vid) === me);
  if (!retiredByMe && !isRetired(s.store.state, old)) await s.commit({ t: 'retire', dev: old });
}
