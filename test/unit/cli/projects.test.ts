/**
 * The CLI side of projects, temporary chats, models and conversation export,
 * run in-process exactly as a user would type them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryCall, reply, text, toolResults, resultText, type FakeAnthropic } from '../../fake-anthropic/server';
import { vaultAndFakeForFile, memoryLines, mnemo, snapshot, tempDir, type VaultAndFake } from './helpers';

let v: VaultAndFake['v'];
let fake: FakeAnthropic;
let env: NodeJS.ProcessEnv;
vaultAndFakeForFile((s) => ({ v, fake, env } = s));

const run = (args: string[], stdin?: string) => mnemo([...args, '--vault', v.vault], { env, ...(stdin !== undefined ? { stdin } : {}) });
const answers = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as { content: string; is_error: boolean });

describe('mnemo projects', () => {
  it('lists one project a line, name first, starting with Default', async () => {
    const r = await run(['projects']);
    expect(r).toMatchObject({ code: 0, stdout: 'Default\tdefault\n' });
  });

  it('creates, renames, refuses bad names, and deletes only with --yes', async () => {
    expect((await run(['projects', 'create', 'Scratch'])).code).toBe(0);
    expect(await run(['projects', 'create', 'scratch'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/already exists/) });
    expect(await run(['projects', 'create', 'a\u0007b'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/control characters/) });
    expect((await run(['projects', 'rename', 'Scratch', 'Sketch'])).code).toBe(0);
    const refused = await run(['projects', 'delete', 'Sketch']);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringMatching(/--yes/) });
    expect((await run(['projects'])).stdout).toMatch(/^Default\tdefault\nSketch\t[0-9a-f]{16}\n$/);
    const deleted = await run(['projects', 'delete', 'Sketch', '--yes']);
    expect(deleted).toMatchObject({ code: 0, stderr: expect.stringMatching(/mnemo projects restore Sketch/) });
    expect((await run(['projects'])).stdout).toBe('Default\tdefault\n');
    expect((await run(['projects', 'restore', 'Sketch'])).code).toBe(0);
    expect((await run(['projects'])).stdout).toMatch(/\nSketch\t/);
    expect(await run(['projects', 'delete', 'Default', '--yes'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/cannot be deleted/) });
    expect(await run(['projects', 'frobnicate'])).toMatchObject({ code: 2 });
  });

  it('--project gives memory, ls and cat the project\'s own /memories, both ways', async () => {
    expect((await run(['projects', 'create', 'Work'])).code).toBe(0);
    const wrote = await run(['memory', '--project', 'Work'], memoryLines({ command: 'create', path: '/memories/job.md', file_text: 'ships on friday' }));
    expect(answers(wrote.stdout)[0]!.is_error).toBe(false);
    await run(['memory'], memoryLines({ command: 'create', path: '/memories/home.md', file_text: 'cat: Tom' }));

    const fromFirst = await run(['memory'], memoryLines({ command: 'view', path: '/memories/job.md' }));
    expect(answers(fromFirst.stdout)[0]).toEqual({ content: 'Error: The path /memories/job.md does not exist. Please provide a valid path.', is_error: true });
    const fromWork = await run(['memory', '--project', 'work'], memoryLines({ command: 'view', path: '/memories/home.md' }));
    expect(answers(fromWork.stdout)[0]!.is_error).toBe(true);

    expect((await run(['ls', '--project', 'Work'])).stdout).toMatch(/\/memories\/job\.md\n$/);
    expect((await run(['ls'])).stdout).not.toMatch(/job\.md|mnemo-projects/);
    expect((await run(['cat', '/memories/job.md', '--project', 'Work'])).stdout).toBe('ships on friday');
    expect((await run(['cat', '/memories/job.md'])).code).toBe(1);
    expect(await run(['ls', '--project', 'Nope'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/no project named "Nope"/) });
  });

  it('export and import take --project', async () => {
    await run(['projects', 'create', 'Ex']);
    await run(['memory', '--project', 'Ex'], memoryLines({ command: 'create', path: '/memories/a/b.md', file_text: 'bee' }));
    const out = path.join(await tempDir(), 'out');
    expect((await run(['export', out, '--plaintext', '--project', 'Ex'])).code).toBe(0);
    expect(await snapshot(out)).toEqual(new Map([['a/b.md', Buffer.from('bee').toString('base64')]]));
    await run(['projects', 'create', 'Im']);
    expect((await run(['import', out, '--project', 'Im'])).code).toBe(0);
    expect((await run(['cat', '/memories/a/b.md', '--project', 'Im'])).stdout).toBe('bee');
    expect((await run(['cat', '/memories/a/b.md'])).code).toBe(1);
  });
});

describe('mnemo chat and conversations with projects', () => {
  it('chat --project writes to that project; conversations lists id, project and title', async () => {
    await run(['projects', 'create', 'Garden']);
    fake.script(reply(memoryCall({ command: 'create', path: '/memories/roses.md', file_text: 'prune in march' })), reply(text('Noted.')));
    const chat = await run(['chat', '--project', 'Garden', '--once', 'Roses need pruning']);
    expect(chat.code).toBe(0);
    const id = /conversation ([0-9a-f]+)/.exec(chat.stderr)![1]!;
    expect((await run(['cat', '/memories/roses.md', '--project', 'Garden'])).stdout).toBe('prune in march');
    expect((await run(['conversations', '--project', 'Garden'])).stdout).toBe(`${id}\tGarden\tRoses need pruning\n`);
    expect((await run(['conversations'])).stdout).toContain(`${id}\tGarden\tRoses need pruning\n`);
    expect((await run(['conversations', '--project', 'Default'])).stdout).not.toContain(id);
  });

  it('chat --temporary reads memory, cannot write it, and stores no conversation', async () => {
    await run(['memory'], memoryLines({ command: 'create', path: '/memories/likes.md', file_text: 'likes tea' }));
    const before = (await run(['conversations'])).stdout;
    fake.script(reply(memoryCall({ command: 'view', path: '/memories/likes.md' }), memoryCall({ command: 'create', path: '/memories/t.md', file_text: 'x' })), reply(text('Only for now.')));
    const chat = await run(['chat', '--temporary', '--once', 'Just between us']);
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('Only for now.');
    const [viewed, created] = toolResults(fake.requests.at(-1)!);
    expect(resultText(viewed!.content)).toContain('likes tea');
    expect(created!.is_error).toBe(true);
    expect(resultText(created!.content)).toMatch(/temporary chat: it does not change memory/);
    expect(chat.stderr).toMatch(/temporary chat.*not kept/i);
    expect((await run(['conversations'])).stdout).toBe(before);
    expect((await run(['cat', '/memories/t.md'])).code).toBe(1);
    expect(await run(['chat', '--temporary', '--conversation', 'abcdefabcdefabcd', '--once', 'x'])).toMatchObject({ code: 2 });
  });

  it('export-conversation writes the conversation as Markdown to a file or stdout', async () => {
    fake.script(reply(memoryCall({ command: 'create', path: '/memories/dog.md', file_text: 'Rex' })), reply(text('A dog named Rex.')));
    const chat = await run(['chat', '--once', 'My dog is Rex']);
    const id = /conversation ([0-9a-f]+)/.exec(chat.stderr)![1]!;
    const printed = await run(['export-conversation', id]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('# My dog is Rex');
    expect(printed.stdout).toContain('> Memory: create `/memories/dog.md`');
    const file = path.join(await tempDir(), 'rex.md');
    expect((await run(['export-conversation', id, file])).code).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toBe(printed.stdout);
    expect(await run(['export-conversation', 'ffffffffffffffff'])).toMatchObject({ code: 1 });
  });

  it("a deleted project's conversation is neither exported nor continued by id until the project is restored", async () => {
    expect((await run(['projects', 'create', 'Secret'])).code).toBe(0);
    fake.script(reply(text('Kept.')));
    const chat = await run(['chat', '--project', 'Secret', '--once', 'the launch code is tangerine']);
    const id = /conversation ([0-9a-f]+)/.exec(chat.stderr)![1]!;
    expect((await run(['projects', 'delete', 'Secret', '--yes'])).code).toBe(0);
    const exported = await run(['export-conversation', id]);
    expect(exported).toMatchObject({ code: 1, stdout: '' });
    expect(exported.stderr).toMatch(/deleted project/);
    const requests = fake.requests.length;
    expect(await run(['chat', '--conversation', id, '--once', 'and now?'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/deleted project/) });
    expect(fake.requests.length).toBe(requests);
    expect((await run(['projects', 'restore', 'Secret'])).code).toBe(0);
    expect((await run(['export-conversation', id])).stdout).toContain('tangerine');
  });
});

describe('mnemo models', () => {
  it('lists each model\'s id and context window, fetched once and kept', async () => {
    const r = await run(['models']);
    expect(r).toMatchObject({ code: 0, stdout: 'claude-sonnet-4-6\t1000000\nclaude-haiku-4-5\t200000\nclaude-opus-4-1\t200000\n' });
    const calls = fake.extra.modelListCalls;
    expect((await run(['models'])).stdout).toBe(r.stdout);
    expect(fake.extra.modelListCalls).toBe(calls);
    expect((await run(['models', '--refresh'])).code).toBe(0);
    expect(fake.extra.modelListCalls).toBe(calls + 1);
  });

  it('a refresh the API answers with something that is not a models list fails with a clear message and keeps the stored list', async () => {
    const before = (await run(['models'])).stdout;
    fake.extra.modelsReply = () => ({ status: 200, body: '<html>not json</html>' });
    try {
      const r = await run(['models', '--refresh']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/not a list of models.*stored list is kept/);
    } finally {
      delete fake.extra.modelsReply;
    }
    expect((await run(['models'])).stdout).toBe(before);
  });
});
