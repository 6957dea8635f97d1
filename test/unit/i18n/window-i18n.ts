/** The window's i18n set up in plain Node for unit tests of renderer code that says things (no page, no IPC). */
import { i18n, startI18n, switchLanguage } from '../../../renderer/lib/i18n';
import type { WindowLanguage } from '../../../renderer/lib/i18n/languages';

/** Starts the window's i18n (once) and switches it to `lang`. */
export async function startTestI18n(lang: WindowLanguage): Promise<void> {
  if (!i18n.isInitialized) await startI18n(async () => 'system', ['en']);
  await switchLanguage(lang);
}
