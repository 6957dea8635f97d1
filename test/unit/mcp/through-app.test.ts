/**
 * The real `mnemo mcp` and `mnemo memory` processes beside the app (its
 * handlers with the channel serving, unlocked): calls go to the app, which
 * records who wrote them (access off: app-off.test.ts).
 */
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import { setAccess } from '../../../electron/core/mcp/client-rules';
import { channelApp, tempDir } from '../mcp-channel/rig';
import { memoryLines, mnemo, PASS, startMcp } from './helpers';

/** The app on a vault in a temp folder, and the environment under which the CLI finds the same vault and state folder. */
async function appAndEnv(access: 'read-write') {
  const root = await tempDir('mnemo-through-');
  const app = await channelApp({ access, dir: root, stateDir: path.join(root, 'xdg', 'mnemo') });
  const env = { XDG_STATE_HOME: path.join(root, 'xdg'), HOME: root, MNEMO_PASSPHRASE: PASS };
  return { app, env, vault: path.join(root, 'vault') };
}

describe('outside processes beside the unlocked app', () => {
  it('mnemo mcp and mnemo memory send their calls to the app, which records each writer', async () => {
    const { app, env, vault } = await appAndEnv('read-write');
    const mcp = await startMcp(vault, env, { name: 'Cursor' });
    try {
      expect(await mcp.memory({ command: 'create', path: '/memories/a.md', file_text: 'from Cursor' })).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false });
      // The app wrote it, in its own session: no lock changed hands, the writer is the client.
      expect(await app.vault().memory.readFile('/memories/a.md')).toBe('from Cursor');
      expect(app.vault().writer('/memories/a.md')).toEqual({ kind: 'mcp', client: 'Cursor' });
      expect(app.events).toContainEqual({ event: 'memoryChanged', payload: expect.objectContaining({ op: 'write', path: '/memories/a.md' }) });
      // mnemo memory needs no passphrase while the app serves.
      const { MNEMO_PASSPHRASE: _unused, ...noPass } = env;
      const res = await mnemo(['memory', '--vault', vault], { env: noPass, stdin: memoryLines({ command: 'create', path: '/memories/b.md', file_text: 'from a script' }, { command: 'view', path: '/memories/a.md' }) });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { is_error: boolean })).toEqual([
        { content: 'File created successfully at: /memories/b.md', is_error: false },
        { content: expect.stringContaining('from Cursor'), is_error: false },
      ]);
      expect(app.vault().writer('/memories/b.md')).toEqual({ kind: 'cli' });
    } finally {
      await mcp.close();
    }
  });

  it('mnemo mcp marks its tool read-only while the app lets this client only view, and follows the user’s change', async () => {
    const { app, env, vault } = await appAndEnv('read-write');
    await saveSettings(app.vault(), { mcpNewClientsReadOnly: true });
    const mcp = await startMcp(vault, env, { name: 'Cursor' });
    const hints = async () => (await mcp.client.listTools()).tools[0]?.annotations;
    try {
      // Known as soon as the client said its name: the server asks the app at initialize, and says it with tools/list_changed.
      await vi.waitFor(async () => expect(await hints()).toEqual({ title: 'Memory (read-only)', readOnlyHint: true, openWorldHint: false }));
      expect(await mcp.memory({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toMatchObject({ is_error: true, content: expect.stringContaining('Cursor is set to view only in Mnemo’s Settings') });
      await setAccess(app.vault().internal, 'Cursor', 'read-write');
      expect(await mcp.memory({ command: 'create', path: '/memories/a.md', file_text: 'x' })).toEqual({ content: 'File created successfully at: /memories/a.md', is_error: false });
      await vi.waitFor(async () => expect((await hints())?.readOnlyHint).toBe(false));
    } finally {
      await mcp.close();
    }
  });
});
