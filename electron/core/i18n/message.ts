/**
 * Messages main sends as a catalog key with parameters, so the window can say
 * them in the user's language, and as English text for logs, the CLI and
 * older callers. `m('errors:vault.locked')` gives both; the English is
 * rendered from the en catalog, so each sentence has one source.
 *
 * Not for the memory tool's answers to Claude: those are the SDK's strings,
 * part of the tool's contract, and stay literal English in core/memory.
 */
import type { MessageParams } from '../../shared/ipc';
import errors from '../../shared/locales/en/errors.json' with { type: 'json' };
import { translator, type KeyOf } from './translator';

export type { MessageParams } from '../../shared/ipc';

/** Every key of the errors namespace, as `errors:…`: a typo is a type error, and the catalog check finds each use. */
export type ErrorKey = `errors:${KeyOf<typeof errors>}`;

/** A message by key: `text` is its English, `key` and `params` what the window renders in its language. */
export interface LocalMessage {
  readonly key: ErrorKey;
  readonly params?: MessageParams;
  readonly text: string;
}

let english: ReturnType<typeof translator> | undefined;

/** The message `key` with `params` (a `count` picks the plural form). */
export function m(key: ErrorKey, params?: MessageParams): LocalMessage {
  english ??= translator('en', { en: { errors } });
  const text = english(key, params ?? {});
  return params ? { key, params, text } : { key, text };
}
