/**
 * The CLI's language: the same catalogs as the window (electron/shared/locales),
 * picked from the POSIX locale variables in their order of precedence: LC_ALL,
 * then LC_MESSAGES, then LANG (`ja_JP.UTF-8` → ja; `C` or `POSIX` → en).
 * Only the chosen language's catalogs are loaded (each is a chunk of the
 * bundle), with en's as the fallback for what a translation lacks.
 *
 * Only text for people goes through here: machine-readable output (`memory`'s
 * JSON lines, `ls` columns, ids) is never translated.
 */
import { matchLanguage, type LanguageCode } from '../shared/languages';
import { translator, type Catalogs, type KeyOf, type Translate } from '../core/i18n/translator';
import { say } from '../core/i18n/message';
import type { Keyed } from '../shared/messages';
import cliEn from '../shared/locales/en/cli.json' with { type: 'json' };
import errorsEn from '../shared/locales/en/errors.json' with { type: 'json' };

/** Every key of the cli namespace, as `cli:…`. */
export type CliKey = `cli:${KeyOf<typeof cliEn>}`;

const LOADERS: Record<LanguageCode, () => Promise<Catalogs>> = {
  en: async () => ({ cli: (await import('../shared/locales/en/cli.json', { with: { type: 'json' } })).default, errors: (await import('../shared/locales/en/errors.json', { with: { type: 'json' } })).default }),
  'zh-CN': async () => ({ cli: (await import('../shared/locales/zh-CN/cli.json', { with: { type: 'json' } })).default, errors: (await import('../shared/locales/zh-CN/errors.json', { with: { type: 'json' } })).default }),
  ja: async () => ({ cli: (await import('../shared/locales/ja/cli.json', { with: { type: 'json' } })).default, errors: (await import('../shared/locales/ja/errors.json', { with: { type: 'json' } })).default }),
  id: async () => ({ cli: (await import('../shared/locales/id/cli.json', { with: { type: 'json' } })).default, errors: (await import('../shared/locales/id/errors.json', { with: { type: 'json' } })).default }),
  'pt-BR': async () => ({ cli: (await import('../shared/locales/pt-BR/cli.json', { with: { type: 'json' } })).default, errors: (await import('../shared/locales/pt-BR/errors.json', { with: { type: 'json' } })).default }),
};

/** The language the POSIX locale asks for: the first of LC_ALL, LC_MESSAGES, LANG that is set; C and POSIX are English. */
export function cliLanguage(env: NodeJS.ProcessEnv): LanguageCode {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v !== '');
  if (!locale || locale === 'C' || locale === 'POSIX' || locale.startsWith('C.')) return 'en';
  // ja_JP.UTF-8@modifier → ja_JP
  return matchLanguage([locale.replace(/[.@].*$/, '')]);
}

/** A `t` for the CLI in the language `env` asks for. */
export async function cliTranslator(env: NodeJS.ProcessEnv): Promise<CliTranslate> {
  return loadTranslator(env);
}

async function loadTranslator(env: NodeJS.ProcessEnv): Promise<Translate> {
  const lng = cliLanguage(env);
  const [en, own] = await Promise.all([LOADERS.en(), lng === 'en' ? undefined : LOADERS[lng]()]);
  return translator(lng, { en, ...(own ? { [lng]: own } : {}) });
}

/** A `t` for the CLI's keys. */
export type CliTranslate = (key: CliKey, params?: Parameters<Translate>[1]) => string;

let english: Translate | undefined;
let current: Translate | undefined;

/** English, until runCli sets the language the environment asks for (a command called directly, as tests do, speaks English). */
function active(): Translate {
  english ??= translator('en', { en: { cli: cliEn, errors: errorsEn } });
  return current ?? english;
}

/** Sets the language every later `tc` and `sayCli` use: the one `env`'s POSIX locale asks for. */
export async function useCliLanguage(env: NodeJS.ProcessEnv): Promise<void> {
  current = cliLanguage(env) === 'en' ? undefined : await loadTranslator(env);
}

/** A CLI text in the language set by useCliLanguage (English before). */
export const tc: CliTranslate = (key, params) => active()(key, params ?? {});

/**
 * Something core said (a VaultError, a chat error) in the CLI's language when it came with a catalog key,
 * else its English `message`.
 */
export function sayCli(msg: { message: string; key?: string | undefined; params?: Keyed['params'] | undefined }): string {
  return msg.key ? say(active(), { key: msg.key, ...(msg.params ? { params: msg.params } : {}) }) : msg.message;
}

/** Columns on a terminal: CJK and other wide characters take two, combining marks none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (/\p{M}/u.test(ch)) continue;
    const wide =
      (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x20000 && cp <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

/** Two columns (option, description), the first padded by display width so wide scripts line up too. */
export function columns(rows: ReadonlyArray<readonly [string, string]>, indent = '  ', gap = 2): string {
  const w = Math.max(...rows.map(([a]) => displayWidth(a)));
  return rows.map(([a, b]) => `${indent}${a}${' '.repeat(w - displayWidth(a) + gap)}${b}\n`).join('');
}

/**
 * The two-column tables of `mnemo --help`: the option padded to `width` columns (by display width), the
 * description's lines (a catalog string may hold line breaks) below each other; an option wider than the
 * column stands on its own line.
 */
export function helpRows(rows: ReadonlyArray<readonly [string, string]>, width = 25): string {
  const indent = ' '.repeat(width + 2);
  return rows
    .map(([a, b]) => {
      const [first = '', ...more] = b.split('\n');
      const head = displayWidth(a) < width ? `  ${a}${' '.repeat(width - displayWidth(a))}${first}\n` : `  ${a}\n${indent}${first}\n`;
      return head + more.map((l) => `${indent}${l}\n`).join('');
    })
    .join('');
}

/** `mnemo ls --help`, in the user's language: the model for every command's help. */
export async function lsHelp(env: NodeJS.ProcessEnv): Promise<string> {
  const t = await cliTranslator(env);
  return [
    `${t('cli:help.ls.usage')}\n\n`,
    `${t('cli:help.ls.summary')}\n\n`,
    `${t('cli:help.ls.optionsTitle')}\n`,
    columns([
      ['--project NAME', t('cli:help.ls.project')],
      ['--vault DIR', t('cli:help.ls.vault')],
      ['--passphrase-file FILE', t('cli:help.ls.passphraseFile')],
      ['--recovery-key-file FILE', t('cli:help.ls.recoveryKeyFile')],
    ]),
    `\n${t('cli:help.ls.exit')}\n`,
  ].join('');
}
