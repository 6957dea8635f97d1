/**
 * Settings and the API key, stored encrypted in the vault's internal namespace.
 * The key is kept apart from the settings so nothing that shows settings can
 * leak it; callers outside core only ever learn whether one is set.
 */
import { Settings, type Settings as SettingsValue, type SettingsPatch } from '../../shared/settings';
import { VaultError, type VaultApi } from '../vault/types';
import { m } from '../i18n/message';

const SETTINGS_KEY = 'settings';
const API_KEY = 'secrets/api-key';

/** The stored settings with defaults filled in; fields that no longer validate fall back to their defaults. */
export async function loadSettings(vault: VaultApi): Promise<SettingsValue> {
  const stored = (await vault.internal.getJSON<Record<string, unknown>>(SETTINGS_KEY)) ?? {};
  const parsed = Settings.safeParse(stored);
  if (parsed.success) return parsed.data;
  // Keep every field that is still valid rather than dropping all of them.
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) if (Settings.safeParse({ [k]: v }).success) kept[k] = v;
  return Settings.parse(kept);
}

/**
 * Applies `patch` (only the fields it carries) over the current settings and
 * stores the result. INVALID (nothing stored) if it does not validate.
 */
/** Each vault's settings save under way: the next one reads what it wrote (a read-modify-write at a time). */
const saving = new WeakMap<VaultApi, Promise<unknown>>();

export function saveSettings(vault: VaultApi, patch: SettingsPatch): Promise<SettingsValue> {
  // Two saves at once both read the settings before either wrote, and the later write dropped the other's change
  // (Settings' two sections saved together; one waited on the passphrase): each now waits for the one before.
  const before = saving.get(vault) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(() => writeSettings(vault, patch));
  saving.set(vault, mine);
  return mine;
}

async function writeSettings(vault: VaultApi, patch: SettingsPatch): Promise<SettingsValue> {
  const current = await loadSettings(vault);
  const next = Settings.safeParse({ ...current, ...patch, contextManagement: { ...current.contextManagement, ...patch.contextManagement } });
  if (!next.success) {
    const issue = next.error.issues[0];
    throw new VaultError('INVALID', m('errors:settings.invalid', { name: issue?.path.join('.') ?? '', detail: issue?.message ?? 'not valid' }));
  }
  await vault.internal.putJSON(SETTINGS_KEY, next.data);
  if (next.data.historyDepth !== vault.historyDepth()) await vault.setHistoryDepth(next.data.historyDepth);
  return next.data;
}

export async function getApiKey(vault: VaultApi): Promise<string | undefined> {
  const bytes = await vault.internal.get(API_KEY);
  if (!bytes) return undefined;
  const key = new TextDecoder().decode(bytes);
  bytes.fill(0);
  return key;
}

/** Refuses what cannot be an API key (too long, or with spaces inside) before it is stored or sent anywhere. */
export function assertApiKeyShape(key: string): void {
  if (key.trim().length > 500 || /\s/.test(key.trim())) throw new VaultError('INVALID', m('errors:apiKey.shape'));
}

/** Stores the API key (trimmed), or removes it with null. */
export async function setApiKey(vault: VaultApi, key: string | null): Promise<void> {
  if (key === null || key.trim() === '') {
    await vault.internal.delete(API_KEY);
    return;
  }
  assertApiKeyShape(key);
  const bytes = new TextEncoder().encode(key.trim());
  await vault.internal.put(API_KEY, bytes);
  bytes.fill(0);
}

export async function hasApiKey(vault: VaultApi): Promise<boolean> {
  return vault.internal.keys(API_KEY).includes(API_KEY);
}

export interface Connection {
  apiKey?: string;
  baseURL?: string;
  model: string;
  maxTokens: number;
}

/**
 * What the chat client connects with: the stored settings and key, with
 * ANTHROPIC_API_KEY taking precedence. The endpoint comes only from
 * ANTHROPIC_BASE_URL: nothing stored (and so nothing the window can set)
 * decides where the key and the memories are sent.
 */
export async function resolveConnection(vault: VaultApi, env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  const settings = await loadSettings(vault);
  const apiKey = env.ANTHROPIC_API_KEY || (await getApiKey(vault));
  const baseURL = env.ANTHROPIC_BASE_URL || undefined;
  return { ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}), model: settings.model, maxTokens: settings.maxTokens };
}
