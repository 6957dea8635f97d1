/**
 * `mnemo mcp --read-only`, `--project NAME`, and a server that cannot open
 * the vault (no passphrase, a wrong one, no vault, no such project): it keeps
 * serving and answers each call with a clear error instead of crashing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initVault, memoryLines, mnemo, snapshot, startMcp } from './helpers';

let v: Awaited<ReturnType<typeof initVault>>;
beforeAll(async () => {
  v = await initVault();
  expect((await mnemo(['projects', 'create', 'Work', '--vault', v.vault], { env: v.env })).code).toBe(0);
  const seed = (project: string[], file: string) =>
    mnemo(['memory', '--vault', v.vault, ...project], { env: v.env, stdin: memoryLines({ command: 'create', path: file, file_text: `${file}\n` }) });
  expect((await seed([], '/memories/first.md')).code).toBe(0);
  expect((await seed(['--project', 'Work'], '/memories/work.md')).code).toBe(0);
});
afterAll(async () => {
  await fs.rm(v.root, { recursive: true, force: true });
});

describe('--read-only', () => {
  it('marks the tool read-only, serves view and resources, refuses every change in the memory tool’s style, and leaves the vault folder byte for byte as it was', async () => {
    const before = await snapshot(v.vault);
    const s = await startMcp(v.vault, v.env, { args: ['--read-only'] });
    try {
      const [tool] = (await s.client.listTools()).tools;
      expect(tool?.annotations).toEqual({ title: 'Memory (read-only)', readOnlyHint: true, openWorldHint: false });
      expect(tool?.description).toMatch(/Read-only here: only view works/);
      expect(await s.memory({ command: 'view', path: '/memories/first.md' })).toEqual({ content: "Here's the content of /memories/first.md with line numbers:\n     1\t/memories/first.md\n     2\t", is_error: false });
      const writes = [
        { command: 'create', path: '/memories/x.md', file_text: 'x' },
        { command: 'str_replace', path: '/memories/first.md', old_str: 'first', new_str: 'x' },
        { command: 'insert', path: '/memories/first.md', insert_line: 0, insert_text: 'x' },
        { command: 'delete', path: '/memories/first.md' },
        { command: 'rename', old_path: '/memories/first.md', new_path: '/memories/y.md' },
      ];
      for (const input of writes) {
        expect(await s.memory(input)).toEqual({
          content: `Error: The memory is read-only here: this Mnemo server was started with --read-only, so the ${input.command} command is not available and nothing was changed. Use view to read memories.`,
          is_error: true,
        });
      }
      // A malformed input gets the memory tool's own answer, read-only or not.
      expect((await s.memory({ command: 'jump' })).content).toMatch(/^Error: Unknown memory command "jump"/);
      expect((await s.client.listResources()).resources.map((r) => r.uri)).toEqual(['mnemo://memories/first.md']);
      expect((await s.client.readResource({ uri: 'mnemo://memories/first.md' })).contents[0]).toMatchObject({ text: '/memories/first.md\n' });
    } finally {
      await s.close();
    }
    expect(await snapshot(v.vault)).toEqual(before);
  });
});

describe('--project', () => {
  it('serves that project’s /memories only, and writes there', async () => {
    const s = await startMcp(v.vault, v.env, { args: ['--project', 'work'] });
    try {
      expect((await s.memory({ command: 'view', path: '/memories' })).content.split('\n').slice(1)).toEqual(['18B\t/memories', '18B\t/memories/work.md']);
      expect(await s.memory({ command: 'view', path: '/memories/first.md' })).toEqual({ content: 'Error: The path /memories/first.md does not exist. Please provide a valid path.', is_error: true });
      expect((await s.memory({ command: 'create', path: '/memories/from-mcp.md', file_text: 'w' })).is_error).toBe(false);
      expect((await s.client.listResources()).resources.map((r) => r.uri)).toEqual(['mnemo://memories/from-mcp.md', 'mnemo://memories/work.md']);
    } finally {
      await s.close();
    }
    expect((await mnemo(['ls', '--project', 'Work', '--vault', v.vault], { env: v.env })).stdout).toMatch(/\/memories\/from-mcp\.md$/m);
    expect((await mnemo(['ls', '--vault', v.vault], { env: v.env })).stdout).not.toMatch(/from-mcp/);
  });

  it('--project-id (the Windows configurations’ form) serves the project with that id, refuses a malformed id before serving', async () => {
    const listed = (await mnemo(['projects', '--vault', v.vault], { env: v.env })).stdout;
    const id = /^Work\s+([0-9a-f]{16})$/m.exec(listed)?.[1];
    expect(id, listed).toBeDefined();
    const s = await startMcp(v.vault, v.env, { args: ['--project-id', id!] });
    try {
      expect(await s.memory({ command: 'view', path: '/memories/work.md' })).toMatchObject({ is_error: false, content: expect.stringContaining('/memories/work.md') });
    } finally {
      await s.close();
    }
    const bad = await mnemo(['mcp', '--vault', v.vault, '--project-id', 'R&D'], { env: v.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--project-id takes a project id');
    expect((await mnemo(['mcp', '--vault', v.vault, '--project-id', id!, '--project', 'Work'], { env: v.env })).code).toBe(2);
  });

  it('answers calls for a project that does not exist with the vault’s sentence, and keeps serving', async () => {
    const s = await startMcp(v.vault, v.env, { args: ['--project', 'Nope'] });
    try {
      for (let i = 0; i < 2; i++) {
        expect(await s.memory({ command: 'view', path: '/memories' })).toEqual({ content: 'Error: There is no project named "Nope". List them with "mnemo projects".', is_error: true });
      }
    } finally {
      await s.close();
    }
  });
});

describe('a server that cannot open the vault', () => {
  it('without a passphrase (and no app) answers every call with how to give one, never prompting', async () => {
    const { MNEMO_PASSPHRASE: _unused, ...env } = v.env;
    const s = await startMcp(v.vault, env);
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await s.memory({ command: 'view', path: '/memories' });
        expect(answer.is_error).toBe(true);
        expect(answer.content).toBe(
          "Error: Mnemo could not open your memory: the Mnemo app is not running unlocked, and this server was given no passphrase. Unlock the Mnemo app, or set MNEMO_PASSPHRASE (or --passphrase-file FILE) in this MCP server's configuration.",
        );
      }
      await expect(s.client.listResources()).rejects.toThrow(/set MNEMO_PASSPHRASE/);
      // The prompt still works, with the default guidance.
      expect((await s.client.getPrompt({ name: 'memory-protocol' })).messages).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('with a wrong passphrase says so, and with a passphrase file that cannot be read says that', async () => {
    const wrong = await startMcp(v.vault, { ...v.env, MNEMO_PASSPHRASE: 'not the right passphrase at all' });
    try {
      expect((await wrong.memory({ command: 'view', path: '/memories' })).content).toMatch(/^Error: Mnemo could not open your memory: the passphrase this server was given does not open the vault\./);
    } finally {
      await wrong.close();
    }
    const { MNEMO_PASSPHRASE: _unused, ...env } = v.env;
    const missing = await startMcp(v.vault, env, { args: ['--passphrase-file', path.join(v.root, 'no-such-file')] });
    try {
      const answer = await missing.memory({ command: 'view', path: '/memories' });
      expect(answer.content).toMatch(/the passphrase file given with --passphrase-file cannot be read or is empty/);
      expect(answer.content).not.toContain(v.root);
    } finally {
      await missing.close();
    }
  });

  it('with no vault where it looks says so without naming the folder', async () => {
    const nowhere = path.join(v.root, 'no-vault-here');
    const s = await startMcp(nowhere, v.env);
    try {
      const answer = await s.memory({ command: 'create', path: '/memories/x.md', file_text: 'x' });
      expect(answer).toEqual({
        content: 'Error: Mnemo could not open your memory: there is no Mnemo vault where this server looks. Create one in the Mnemo app (or with "mnemo init"), or give this server its folder with --vault DIR.',
        is_error: true,
      });
    } finally {
      await s.close();
    }
    await expect(fs.stat(nowhere)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses positional arguments and the recovery key as usage errors (exit 2) before serving', async () => {
    expect(await mnemo(['mcp', 'extra', '--vault', v.vault], { env: v.env })).toMatchObject({ code: 2, stdout: '' });
    const r = await mnemo(['mcp', '--recovery-key-file', 'x', '--vault', v.vault], { env: v.env });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/not the recovery key/);
  });
});
