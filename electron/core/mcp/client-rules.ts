/**
 * The apps that have used this memory through the app's channel, each known
 * by the name it gave (an MCP client's `initialize` name, or "mnemo memory"),
 * with what the user lets it do: view only, or view and change. Kept
 * encrypted in the vault's internal store (`mcp/clients`), where the memory
 * tool cannot reach it; written only by the app.
 *
 * A name is what the app says it is: any program running as the user can
 * claim another's. So a rule here keeps an app the user trusts from changing
 * memory by mistake; the access level (off, read-only, read-write) is the
 * boundary.
 */
import { KnownClient, type ClientAccess } from '../../shared/channel';
import type { Settings } from '../../shared/settings';
import { VaultError, type InternalStore } from '../vault/types';
import { m } from '../i18n/message';

export type { ClientAccess, KnownClient } from '../../shared/channel';

export const CLIENT_RULES_KEY = 'mcp/clients';
/** Apps remembered at most; one more is treated as new each time (by the "new apps" setting) and not added. */
export const MAX_KNOWN_CLIENTS = 50;

type Store = Pick<InternalStore, 'getJSON' | 'putJSON' | 'version'>;

/**
 * The list as last read or written, per store, with the stored value's version it was had at (several computers:
 * another's change, once synced, is read again instead of the list remembered here being used, and written back,
 * over it); and the write each store's next one waits for.
 */
const cached = new WeakMap<Store, { version: string | undefined; list: Promise<KnownClient[]> }>();
const writing = new WeakMap<Store, Promise<unknown>>();

async function load(store: Store): Promise<KnownClient[]> {
  const stored = await store.getJSON<unknown>(CLIENT_RULES_KEY);
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((e) => {
    const parsed = KnownClient.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Every known app, in the order they first connected. */
export function knownClients(store: Store): Promise<KnownClient[]> {
  const version = store.version?.(CLIENT_RULES_KEY);
  const had = cached.get(store);
  if (had && had.version === version) return had.list;
  const entry = { version, list: load(store) };
  cached.set(store, entry);
  // A failed read is tried again next time.
  entry.list.catch(() => {
    if (cached.get(store) === entry) cached.delete(store);
  });
  return entry.list;
}

/** Runs one change of the list after the ones before it (a read-modify-write must not lose another). */
function change<T>(store: Store, fn: (list: KnownClient[]) => { next?: KnownClient[]; value: T }): Promise<T> {
  const run = (writing.get(store) ?? Promise.resolve()).then(async () => {
    const { next, value } = fn(await knownClients(store));
    if (next) {
      await store.putJSON(CLIENT_RULES_KEY, next);
      cached.set(store, { version: store.version?.(CLIENT_RULES_KEY), list: Promise.resolve(next) });
    }
    return value;
  });
  writing.set(store, run.catch(() => undefined));
  return run;
}

/** What an app not known (or forgotten) gets at its next connection, by the "new apps start read-only" setting. */
export const newClientAccess = (settings: Pick<Settings, 'mcpNewClientsReadOnly'>): ClientAccess => (settings.mcpNewClientsReadOnly ? 'read-only' : 'read-write');

/** What `name` may do; an app not known yet is remembered (while there is room) as `newAccess`. */
export function accessOf(store: Store, name: string, newAccess: ClientAccess, now = Date.now()): Promise<ClientAccess> {
  return change(store, (list) => {
    const known = list.find((c) => c.name === name);
    if (known) return { value: known.access };
    if (list.length >= MAX_KNOWN_CLIENTS) return { value: newAccess };
    return { next: [...list, { name, access: newAccess, firstSeen: now }], value: newAccess };
  });
}

/** What a known app may do now, without remembering anyone (read at each call). */
export async function currentAccess(store: Store, name: string, newAccess: ClientAccess): Promise<ClientAccess> {
  return (await knownClients(store)).find((c) => c.name === name)?.access ?? newAccess;
}

/** Sets what a known app may do; NOT_FOUND for a name never seen. Returns the whole list. */
export function setAccess(store: Store, name: string, access: ClientAccess): Promise<KnownClient[]> {
  return change(store, (list) => {
    if (!list.some((c) => c.name === name)) throw new VaultError('NOT_FOUND', m('errors:apps.unknown'));
    const next = list.map((c) => (c.name === name ? { ...c, access } : c));
    return { next, value: next };
  });
}

/**
 * Forgets a known app, freeing its place in the list; NOT_FOUND for a name never seen. Its next connection makes it
 * new again, with what new apps get (the caller checks that this is no widening). Returns the whole list.
 */
export function forgetClient(store: Store, name: string): Promise<KnownClient[]> {
  return change(store, (list) => {
    if (!list.some((c) => c.name === name)) throw new VaultError('NOT_FOUND', 'No app of that name has connected to Mnemo.');
    const next = list.filter((c) => c.name !== name);
    return { next, value: next };
  });
}
