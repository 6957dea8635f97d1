/**
 * The languages Mnemo ships and the device preference that picks one. Data
 * and schemas only: the window and the CLI each have their own loader (the
 * renderer may only `import type` from here; see renderer/lib/i18n/).
 */
import { z } from 'zod';

/** Every shipped language, en first (the source every other catalog is translated from, and the fallback). */
export const LANGUAGE_CODES = ['en', 'zh-CN', 'ja', 'id', 'pt-BR'] as const;
export type LanguageCode = (typeof LANGUAGE_CODES)[number];
export const LanguageCode = z.enum(LANGUAGE_CODES);

/** The namespaces of the catalogs, one file each per language: electron/shared/locales/<language>/<namespace>.json. */
export const NAMESPACES = ['common', 'unlock', 'chat', 'memories', 'settings', 'palette', 'errors', 'cli'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** The Language setting: follow the system's language, or one of the shipped ones. */
export const LanguageChoice = z.union([z.literal('system'), LanguageCode]);
export type LanguageChoice = z.infer<typeof LanguageChoice>;

/** What this device remembers outside the vault (nothing secret): kept by main beside window-state.json. */
export const DevicePrefs = z.object({ language: LanguageChoice });
export type DevicePrefs = z.infer<typeof DevicePrefs>;

export { matchLanguage } from './language-match';
