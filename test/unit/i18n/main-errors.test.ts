/**
 * An error main sends crosses as its English message with its catalog key and parameters, and the window says
 * it in its own language (here ja and pt-BR, with a plural and a message said inside another); the CLI says the
 * same key in the POSIX locale's language.
 */
import { afterAll, expect, it } from 'vitest';
import { m } from '../../../electron/core/i18n/message';
import { VaultError } from '../../../electron/core/vault/types';
import { dispatch } from '../../../electron/main/handlers';
import type { Handlers } from '../../../electron/main/handlers/types';
import { ApiError, messageOf } from '../../../renderer/lib/api';
import { startTestI18n } from './window-i18n';

/** One call whose handler fails as `err` does, through main's real envelope. */
async function failWith(err: Error) {
  const handlers = { vaultLock: async () => Promise.reject(err) } as unknown as Handlers;
  const r = await dispatch(handlers, 'vaultLock', []);
  if (r.ok) throw new Error('expected a failure');
  return new ApiError(r.error.code, r.error.message, r.error.key, r.error.params);
}

afterAll(async () => startTestI18n('en'));

it('a wrong passphrase arrives with its key and is said in ja and pt-BR; the English message is unchanged', async () => {
  const e = await failWith(new VaultError('BAD_PASSPHRASE', m('errors:unlock.wrongPassphrase')));
  expect(e.code).toBe('BAD_PASSPHRASE');
  expect(e.key).toBe('errors:unlock.wrongPassphrase');
  expect(e.message).toBe('Wrong passphrase: it does not open this vault. Nothing was changed; check it and try again, or use your recovery key.');
  await startTestI18n('ja');
  expect(messageOf(e)).toBe('パスフレーズが違います。この保管庫は開けません。何も変更されていません。確認してもう一度お試しいただくか、回復キーを使ってください。');
  await startTestI18n('pt-BR');
  expect(messageOf(e)).toMatch(/^Frase secreta incorreta: ela não abre este cofre\./);
});

it('parameters, plurals and a message inside another are said in the window’s language', async () => {
  const tries = await failWith(new VaultError('BAD_PASSPHRASE', m('errors:unlock.tooManyTries', { count: 1 })));
  expect(tries.message).toBe('Too many wrong tries. Wait 1 second, then try again. Nothing was changed.');
  const disk = await failWith(new VaultError('DISK_FULL', m('errors:io.diskFull', { what: m('errors:io.action.saveChange') })));
  expect(disk.params).toEqual({ what: { key: 'errors:io.action.saveChange' } });
  const refused = await failWith(new VaultError('NOT_FOUND', m('errors:memory.notFound', { path: '/memories/ノート.md' })));
  await startTestI18n('pt-BR');
  expect(messageOf(tries)).toBe('Tentativas erradas demais. Aguarde 1 segundo e tente de novo. Nada foi alterado.');
  expect(messageOf(disk)).toMatch(/^Não foi possível salvar a alteração: o disco/);
  expect(messageOf(refused)).toBe('/memories/ノート.md não existe.');
  await startTestI18n('ja');
  expect(messageOf(disk)).toMatch(/^変更を保存することができませんでした。/);
  expect(messageOf(refused)).toBe('/memories/ノート.md は存在しません。');
});

it('an error main made without a key is shown as main’s English', async () => {
  const e = await failWith(new VaultError('IO', 'Something only said in English.'));
  await startTestI18n('ja');
  expect(messageOf(e)).toBe('Something only said in English.');
});
