/**
 * Messages main sends as a catalog key with parameters, so the window can say
 * them in the user's language, and as English text for logs, the CLI and
 * older callers. `m('errors:vault.locked')` gives both; the English is
 * rendered from the en catalog, so each sentence has one source.
 *
 * Not for the memory tool's answers to Claude: those are the SDK's strings,
 * part of the tool's contract, and stay literal English in core/memory.
 */
import type { Keyed, MessageParams, Said } from '../../shared/messages';
import common from '../../shared/locales/en/common.json' with { type: 'json' };
import errors from '../../shared/locales/en/errors.json' with { type: 'json' };
import { translator, type KeyOf, type Translate } from './translator';

export type { Keyed, MessageParam, MessageParams, Said } from '../../shared/messages';

/** Every key of the errors namespace, as `errors:…`: a typo is a type error, and the catalog check finds each use. */
export type ErrorKey = `errors:${KeyOf<typeof errors>}`;

/** A message by key: `text` is its English, `key` and `params` what the window renders in its language. */
export interface LocalMessage {
  readonly key: ErrorKey;
  readonly params?: MessageParams;
  readonly text: string;
}

/** What m() takes as parameters: values, or other messages (made with m()) said inside this one. */
export type LocalParams = Record<string, string | number | Keyed | readonly Keyed[]>;

let english: Translate | undefined;

/** The English translator of the errors namespace (what `text` is rendered with), and of the common words an error may say. */
export function englishErrors(): Translate {
  english ??= translator('en', { en: { errors, common } });
  return english;
}

/** `params` as they cross to the window: nested messages as key and parameters only (their English stays here). */
function bare(params: LocalParams): MessageParams {
  const one = (k: Keyed): Keyed => (k.params ? { key: k.key, params: k.params } : { key: k.key });
  return Object.fromEntries(Object.entries(params).map(([n, v]) => [n, typeof v === 'object' ? (Array.isArray(v) ? (v as readonly Keyed[]).map(one) : one(v as Keyed)) : v]));
}

/** The message `key` with `params` (a `count` picks the plural form; a message as a value is said inside this one). */
export function m(key: ErrorKey, params?: LocalParams): LocalMessage {
  const clean = params && bare(params);
  const text = say(englishErrors(), { key, ...(clean ? { params: clean } : {}) });
  return clean ? { key, params: clean, text } : { key, text };
}

/**
 * A keyed message in the language of `t`: nested messages are said first (a list of them joined by the
 * language's `errors:listSeparator`), then the message itself. The window does the same (renderer/lib/i18n).
 */
export function say(t: Translate, msg: Keyed): string {
  const values: Record<string, string | number> = {};
  for (const [name, v] of Object.entries(msg.params ?? {})) {
    values[name] = typeof v !== 'object' ? v : Array.isArray(v) ? v.map((x) => say(t, x)).join(t('errors:listSeparator')) : say(t, v);
  }
  return t(msg.key, values);
}

/** A message as its key and parameters only (its English stays here). */
export function keyed(msg: Keyed): Keyed {
  return msg.params ? { key: msg.key, params: msg.params } : { key: msg.key };
}

/** The form a message takes inside a result or an event: English `message`, with its key and parameters. */
export function said(msg: LocalMessage): Said {
  return { message: msg.text, key: msg.key, ...(msg.params ? { params: msg.params } : {}) };
}
