/** The chat screen end to end: real handlers, the real SDK, and test/fake-anthropic as Claude. */
import { expect, test } from '@playwright/test';
import { Conversations } from '../../electron/core/chat/conversations';
import { saveSettings, setApiKey } from '../../electron/core/chat/settings-store';
import { apiError, memoryCall, reply, resultText, text, toolResults, type FakeAnthropic } from '../fake-anthropic/server';
import { lastReply, lock, messageBox as message, openMemories, send, shot, typeInEditor, unlock, eachWithFakeApi, type FreshApp, newConversationButton } from './helpers';

let app: FreshApp;
let fake: FakeAnthropic;

eachWithFakeApi((a, f) => ((app = a), (fake = f)), { ready: true });

const vault = () => app.session.unlocked();

test('two conversations: Claude writes a memory, the user edits it, and the next conversation reads the edit', async () => {
  const { page } = app;
  fake.script(
    reply(text('Let me check what I know.'), memoryCall({ command: 'view', path: '/memories' })),
    reply(memoryCall({ command: 'create', path: '/memories/prefs.md', file_text: '# Preferences\n- Drinks: coffee\n' })),
    reply(text('Noted: you like **coffee**.')),
  );
  await send(page, 'I like coffee.');
  await expect(page.getByRole('button', { name: 'viewed /memories' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'created /memories/prefs.md' })).toBeVisible();
  await expect(lastReply(page)).toContainText('Noted: you like coffee.');
  await page.getByRole('button', { name: 'created /memories/prefs.md' }).click();
  await expect(page.getByLabel('Result sent to Claude')).toHaveText('File created successfully at: /memories/prefs.md');
  await expect(page.getByLabel('Changes to /memories/prefs.md')).toContainText('added: - Drinks: coffee');
  await shot(page, '20-chat-chips-and-diff');

  // The user corrects the memory by hand in the editor.
  await page.getByRole('button', { name: 'Open in editor' }).click();
  await expect(page.getByRole('treeitem', { name: 'prefs.md' })).toBeVisible();
  await typeInEditor(page, '# Preferences\n- Drinks: tea, never coffee\n');
  await page.keyboard.press('ControlOrMeta+S');
  await expect(page.getByLabel('Unsaved changes')).toHaveCount(0);

  await page.getByRole('tab', { name: 'Chat' }).click();
  await newConversationButton(page).click();
  fake.script(reply(memoryCall({ command: 'view', path: '/memories/prefs.md' })), reply(text('You drink tea.')));
  await send(page, 'What do I drink?');
  await expect(lastReply(page)).toContainText('You drink tea.');
  const seen = resultText(toolResults(fake.requests.at(-1)!)[0]!.content);
  expect(seen).toContain('tea, never coffee');
  await expect(page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'What do I drink?', exact: true })).toBeVisible();
});

test('replies stream in; stop keeps the partial reply marked as stopped, and the next message works', async () => {
  const { page } = app;
  // Long and slow enough (about 15 s) that Stop always lands before the end, however busy the machine.
  const long = 'This answer arrives slowly, a few characters at a time, so the user can stop it halfway through. '.repeat(5);
  fake.script({ ...reply(text(long)), delayMs: 100, chunk: 3 });
  await send(page, 'Tell me something long.');
  const streaming = page.locator('article.streaming');
  await expect(streaming).toContainText('This answer');
  // Visible while the stream is still running.
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByText('Stopped.', { exact: true })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  const partial = await lastReply(page).textContent();
  expect(partial!.length).toBeLessThan(long.length + 40);
  fake.script(reply(text('Here is a short one.')));
  await send(page, 'Shorter, please.');
  await expect(lastReply(page)).toContainText('Here is a short one.');
});

test('undo on an edit chip restores the earlier version in the vault', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/todo.md', '- buy milk\n', { mode: 'create', source: 'user' });
  fake.script(reply(memoryCall({ command: 'str_replace', path: '/memories/todo.md', old_str: '- buy milk', new_str: '- buy oat milk' })), reply(text('Changed it.')));
  await send(page, 'Make it oat milk.');
  const chip = page.getByRole('button', { name: 'edited /memories/todo.md' });
  await expect(chip).toBeVisible();
  expect(await vault().memory.readFile('/memories/todo.md')).toBe('- buy oat milk\n');
  await chip.click();
  await page.getByRole('button', { name: 'Undo this change' }).click();
  await expect(page.getByText('Undone')).toBeVisible();
  expect(await vault().memory.readFile('/memories/todo.md')).toBe('- buy milk\n');
});

test('an undo clicked while the reply still streams says its answer after the reply is saved (CI failure of stop 37)', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/todo.md', '- buy milk\n', { mode: 'create', source: 'user' });
  // The chip shows while the last reply still streams; the saved reply that replaces it makes a new chip.
  fake.script(reply(memoryCall({ command: 'str_replace', path: '/memories/todo.md', old_str: '- buy milk', new_str: '- buy oat milk' })), { ...reply(text('Changed it to oat milk for you. '.repeat(6).trim())), delayMs: 120, chunk: 4 });
  await send(page, 'Make it oat milk.');
  const chip = page.getByRole('button', { name: 'edited /memories/todo.md' });
  await expect(chip).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  await chip.click();
  await page.getByRole('button', { name: 'Undo this change' }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 30_000 });
  await expect(lastReply(page)).toContainText('for you.');
  await expect(page.getByText('Undone')).toBeVisible();
  expect(await vault().memory.readFile('/memories/todo.md')).toBe('- buy milk\n');
});

test('approval mode: a denied write leaves the vault unchanged and the transcript says so', async () => {
  const { page } = app;
  await saveSettings(vault(), { approvalMode: true });
  fake.script(reply(memoryCall({ command: 'create', path: '/memories/secret-plan.md', file_text: 'world domination' })), reply(text('Understood, I will not save it.')));
  await send(page, 'Remember my plan.');
  const ask = page.getByRole('group', { name: 'Approve create /memories/secret-plan.md' });
  await expect(ask).toContainText('world domination');
  await shot(page, '21-chat-approval');
  await ask.getByRole('button', { name: 'Deny' }).click();
  await expect(lastReply(page)).toContainText('Understood, I will not save it.');
  await expect(page.getByRole('button', { name: 'failed to create /memories/secret-plan.md' })).toBeVisible();
  expect(vault().memory.stat('/memories/secret-plan.md')).toBeUndefined();
  expect(resultText(toolResults(fake.requests.at(-1)!)[0]!.content)).toMatch(/declined/);
});

test('approval mode: a file the user rewrote while its delete card waited is not deleted on Allow, and the chip says why', async () => {
  const { page } = app;
  await vault().memory.writeFile('/memories/notes.md', 'old scratch', { mode: 'create', source: 'user' });
  await saveSettings(vault(), { approvalMode: true });
  fake.script(reply(memoryCall({ command: 'delete', path: '/memories/notes.md' })), reply(text('I will look again.')));
  await send(page, 'Clean up my notes.');
  const ask = page.getByRole('group', { name: 'Approve delete /memories/notes.md' });
  await expect(ask).toContainText('old scratch');
  // The user (or another app) rewrites the file while the card still shows its old text.
  await vault().memory.writeFile('/memories/notes.md', 'precious', { mode: 'update', source: 'user' });
  await ask.getByRole('button', { name: 'Approve' }).click();
  await expect(lastReply(page)).toContainText('I will look again.');
  await expect(page.getByText('the memory changed while this change waited for your approval')).toBeVisible();
  expect(await vault().memory.readFile('/memories/notes.md')).toBe('precious');
  expect(resultText(toolResults(fake.requests.at(-1)!)[0]!.content)).toMatch(/^Error: The memory changed while this change waited/);
});

test('a refused key (401) points to Settings and keeps the typed message', async () => {
  const { page } = app;
  await setApiKey(vault(), 'sk-ant-wrong-key');
  await send(page, 'Hello?');
  await expect(page.getByRole('alert')).toContainText('API key was refused');
  await expect(page.getByRole('alert').getByRole('button', { name: 'Open Settings' })).toBeVisible();
  await expect(message(page)).toHaveValue('Hello?');
  await shot(page, '22-chat-error-401');
});

test('429: the wait is shown and the reply arrives after the retry; when retries run out the message is kept', async () => {
  const { page } = app;
  fake.script(apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '2' }), reply(text('Sorry for the wait.')));
  await send(page, 'Hi there');
  await expect(page.getByRole('status').filter({ hasText: 'retrying in 2 s' })).toBeVisible();
  await expect(lastReply(page)).toContainText('Sorry for the wait.');

  fake.script(...[1, 2, 3].map(() => apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '0' })));
  await send(page, 'Again?');
  await expect(page.getByRole('alert')).toContainText('Rate limited');
  await expect(message(page)).toHaveValue('Again?');
});

test('with the network down the error says so and the message stays in the box', async () => {
  const { page } = app;
  await fake.close();
  await send(page, 'Anyone there?');
  await expect(page.getByRole('alert')).toContainText('Could not reach the Anthropic API', { timeout: 30_000 });
  await expect(message(page)).toHaveValue('Anyone there?');
});

test('HTML in a reply or a memory renders inert', async () => {
  const { page } = app;
  const hostile = 'Hi <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [link](javascript:window.__pwned=3) **bold**';
  fake.script(reply(text(hostile)));
  await send(page, 'Say something odd.');
  await expect(lastReply(page).locator('strong')).toHaveText('bold');
  await expect(lastReply(page).locator('img, script')).toHaveCount(0);
  await expect(lastReply(page).locator('a[href^="javascript"]')).toHaveCount(0);
  // A memory carrying the same HTML, viewed through a chip, is shown as text.
  await vault().memory.writeFile('/memories/evil.md', hostile, { mode: 'create', source: 'claude' });
  await openMemories(page);
  await page.getByRole('treeitem', { name: 'evil.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Editor' })).toContainText('<script>');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});

test('the open conversation, not just the newest, is still open after lock and unlock', async () => {
  const { page } = app;
  fake.script(reply(text('First answer.')), reply(text('Second answer.')));
  await send(page, 'First conversation');
  await expect(lastReply(page)).toContainText('First answer.');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await newConversationButton(page).click();
  await send(page, 'Second conversation');
  await expect(lastReply(page)).toContainText('Second answer.');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await page.getByRole('button', { name: 'First conversation', exact: true }).click();
  await expect(lastReply(page)).toContainText('First answer.');
  await lock(page);
  await unlock(page);
  await expect(lastReply(page)).toContainText('First answer.');
});

test('edit last message opens the message in place; sending the edit replaces the exchange, the old one kept as a version', async () => {
  const { page } = app;
  fake.script(reply(text('Paris.')), reply(text('Rome.')));
  await send(page, 'Capital of Frence?');
  await expect(lastReply(page)).toContainText('Paris.');
  await page.getByRole('button', { name: 'Edit last message' }).click();
  const edited = page.getByRole('textbox', { name: 'Your edit' });
  await expect(edited).toHaveValue('Capital of Frence?');
  await expect(edited).toBeFocused();
  await edited.fill('Capital of Italy?');
  await edited.press('Enter');
  await expect(lastReply(page)).toContainText('Rome.');
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' }).getByRole('group', { name: 'Versions of this message' })).toContainText('2 / 2');
  expect(fake.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'Capital of Italy?' }]);
});

test('Enter pressed twice before main has answered sends the message once, into one conversation; Send waits meanwhile', async () => {
  const { page } = app;
  fake.script(reply(text('Only once.')), reply(text('A second reply nobody asked for.')));
  await message(page).fill('Say it once.');
  // Both presses in one task: the second comes while the first is still making the conversation and asking main.
  await message(page).evaluate((box) => {
    const seen = ((window as unknown as { __sendStates: string[] }).__sendStates = [] as string[]);
    const send = document.querySelector('button.send')!;
    new MutationObserver(() => seen.push(send.getAttribute('aria-disabled') ?? 'none')).observe(send, { attributes: true, attributeFilter: ['aria-disabled'] });
    const enter = () => box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true }));
    enter();
    enter();
  });
  await expect(lastReply(page)).toContainText('Only once.');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(fake.requests.length, 'one request to the API').toBe(1);
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  expect((await new Conversations(vault()).list()).length, 'one conversation').toBe(1);
  const sendStates = await page.evaluate(() => (window as unknown as { __sendStates: string[] }).__sendStates);
  expect(sendStates[0], 'Send is shown as not available while the message is on its way').toBe('true');
});
