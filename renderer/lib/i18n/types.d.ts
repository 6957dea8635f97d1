/**
 * Catalog keys are type-checked in the window: `t('unlock:create.title')` with a key en's catalogs
 * lack is a compile error. en is the source; the other languages are checked by the catalog test.
 */
import 'i18next';
import type chat from '../../../electron/shared/locales/en/chat.json';
import type common from '../../../electron/shared/locales/en/common.json';
import type errors from '../../../electron/shared/locales/en/errors.json';
import type memories from '../../../electron/shared/locales/en/memories.json';
import type palette from '../../../electron/shared/locales/en/palette.json';
import type settings from '../../../electron/shared/locales/en/settings.json';
import type unlock from '../../../electron/shared/locales/en/unlock.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: { common: typeof common; unlock: typeof unlock; chat: typeof chat; memories: typeof memories; settings: typeof settings; palette: typeof palette; errors: typeof errors };
  }
}
