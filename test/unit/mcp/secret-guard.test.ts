/**
 * The secret guard holds for MCP clients as for Claude in the app: `mnemo mcp`
 * refuses a write carrying an API key with the guard's own words, whether it
 * opens the vault itself (the app closed) or hands the call to the app, and
 * nothing of the key reaches the vault.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { channelApp, tempDir } from '../mcp-channel/rig';
import { initVault, mnemo, snapshot, startMcp } from './helpers';

const KEY = 'sk-ant-api03-' + 'Abc123_-'.repeat(10);
const REFUSED = {
  content: 'Error: No change was made: the text looks like it contains an Anthropic API key. Secrets must not be stored in memory. Leave the value out (you can note that it exists and where the user keeps it) and try again.',
  is_error: true,
};
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
});

describe('the secret guard through mnemo mcp', () => {
  it('refuses an API key in a create, a str_replace and an insert when mnemo mcp opens the vault itself; nothing is written', async () => {
    const v = await initVault();
    roots.push(v.root);
    const s = await startMcp(v.vault, v.env, { name: 'Cursor' });
    try {
      expect((await s.memory({ command: 'create', path: '/memories/notes.md', file_text: 'notes\n' })).is_error).toBe(false);
      const before = await snapshot(v.vault);
      expect(await s.memory({ command: 'create', path: '/memories/keys.md', file_text: `my key: ${KEY}\n` })).toEqual(REFUSED);
      expect(await s.memory({ command: 'str_replace', path: '/memories/notes.md', old_str: 'notes', new_str: KEY })).toEqual(REFUSED);
      expect(await s.memory({ command: 'insert', path: '/memories/notes.md', insert_line: 0, insert_text: KEY })).toEqual(REFUSED);
      expect(await snapshot(v.vault)).toEqual(before);
    } finally {
      await s.close();
    }
    expect((await mnemo(['cat', '/memories/notes.md', '--vault', v.vault], { env: v.env })).stdout).toBe('notes\n');
  });

  it('refuses it the same when the call goes through the unlocked app', async () => {
    const root = await tempDir('mnemo-guard-');
    const app = await channelApp({ dir: root, stateDir: path.join(root, 'xdg', 'mnemo') });
    // No passphrase: the call can only be served by the app.
    const s = await startMcp(path.join(root, 'vault'), { XDG_STATE_HOME: path.join(root, 'xdg'), HOME: root }, { name: 'Claude Code' });
    try {
      expect(await s.memory({ command: 'create', path: '/memories/keys.md', file_text: `my key: ${KEY}\n` })).toEqual(REFUSED);
      expect(app.vault().memory.stat('/memories/keys.md')).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
