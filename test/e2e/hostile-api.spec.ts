/**
 * Issue 17, items 2 and 6–9, end to end: a hostile API server (repeated
 * tool_use ids, a tool that is not memory, tool calls without end, an endless
 * reply) and locks in the middle of work, through the real handlers, the real
 * SDK and test/fake-anthropic. Nothing unapproved is written, nothing runs
 * without end, and nothing the user typed or Claude wrote is lost.
 */
import { expect, test } from '@playwright/test';
import { saveSettings } from '../../electron/core/chat/settings-store';
import { VaultError } from '../../electron/core/vault/types';
import { memoryCall, reply, text, type FakeAnthropic } from '../fake-anthropic/server';
import { eachWithFakeApi, expectAccessible, lastReply, lock, messageBox as message, send, unlock, type FreshApp } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;

eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const vault = () => app.session.unlocked();

test('a reply whose tool_use ids repeat shows no approval card, writes nothing, and says why in the transcript', async () => {
  const { page } = app;
  await saveSettings(vault(), { approvalMode: true });
  fake.script(
    reply(memoryCall({ command: 'create', path: '/memories/benign.md', file_text: 'fine' }, 'toolu_same'), memoryCall({ command: 'create', path: '/memories/evil.md', file_text: 'evil' }, 'toolu_same')),
  );
  await send(page, 'Note this.');
  await expect(lastReply(page)).toContainText('repeat the same id');
  await expect(page.getByRole('group', { name: /^Approve/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(vault().memory.stat('/memories/benign.md')).toBeUndefined();
  expect(vault().memory.stat('/memories/evil.md')).toBeUndefined();
  await expect(page.getByRole('article', { name: 'You' }).last()).toContainText('Note this.');
  await expectAccessible(page, 'a refused reply');
  fake.script(reply(text('All good now.')));
  await send(page, 'Again.');
  await expect(lastReply(page)).toContainText('All good now.');
});

test('a tool that is not memory never shows as a memory chip', async () => {
  const { page } = app;
  fake.script(reply(text('Running it.'), { type: 'tool_use', id: 'toolu_x', name: 'shell', input: { command: 'create', path: '/memories/fake.md', file_text: 'x' } }), reply(text('That tool does not exist.')));
  await send(page, 'Go.');
  await expect(lastReply(page)).toContainText('That tool does not exist.');
  await expect(page.locator('.chip')).toHaveCount(0);
  expect(vault().memory.stat('/memories/fake.md')).toBeUndefined();
});

test('a server that calls tools without end stops at the round limit; Continue, by keyboard, runs the next rounds', async () => {
  const { page } = app;
  await saveSettings(vault(), { maxToolRounds: 3 });
  fake.otherwise(() => reply(memoryCall({ command: 'view', path: '/memories' })));
  await send(page, 'Loop.');
  const go = page.getByRole('button', { name: 'Continue', exact: true });
  await expect(go).toBeVisible();
  await expect(lastReply(page)).toContainText('after 3 rounds');
  expect(fake.requests).toHaveLength(3);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expectAccessible(page, 'a turn stopped by the round limit');
  fake.otherwise(undefined);
  fake.script(reply(text('Finally done.')));
  await go.focus();
  await page.keyboard.press('Enter');
  await expect(lastReply(page)).toContainText('Finally done.');
  await expect(go).toHaveCount(0);
  await expect(message(page)).toBeFocused();
  expect(fake.requests).toHaveLength(4);
  // Continue added Claude's reply only: the user said one thing.
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
});

test('an endless reply is cut, marked as cut, and the message stays', async () => {
  const { page } = app;
  await saveSettings(vault(), { maxTokens: 1024 });
  const flood = { kind: 'text' as const, bytes: 100 * 1024 * 1024, chunk: 4096 };
  fake.script({ ...reply(text('Here it comes:')), flood });
  await send(page, 'Say a lot.');
  await expect(lastReply(page)).toContainText('The reply was cut');
  await expect(page.getByRole('article', { name: 'You' }).last()).toContainText('Say a lot.');
  expect((flood as { sent?: number }).sent).toBeLessThan(16 * 1024 * 1024);
});

test('locking while a reply streams keeps the message and what had arrived, marked as interrupted', async () => {
  const { page } = app;
  const long = 'A slow answer that arrives a few characters at a time. '.repeat(60);
  fake.script({ ...reply(text(long)), delayMs: 30, chunk: 4 });
  await send(page, 'Tell me a long story.');
  await expect(page.locator('article.streaming')).toContainText('A slow answer that arrives');
  await lock(page);
  await unlock(page);
  await expect(page.getByRole('article', { name: 'You' }).last()).toContainText('Tell me a long story.');
  await expect(lastReply(page)).toContainText('A slow answer that arrives');
  await expect(lastReply(page)).toContainText('Interrupted: the vault locked');
});

test('a draft the vault cannot take at lock is announced on the lock screen and comes back into the box', async () => {
  const { page } = app;
  await message(page).fill('Half-typed words 4412');
  const internal = vault().internal;
  const putJSON = internal.putJSON.bind(internal);
  internal.putJSON = async () => {
    throw new VaultError('IO', 'The disk is full: the vault could not be written.');
  };
  await lock(page);
  internal.putJSON = putJSON;
  await expect(page.getByRole('alert')).toContainText('stays only in this window');
  await unlock(page);
  await expect(message(page)).toHaveValue('Half-typed words 4412');
});
