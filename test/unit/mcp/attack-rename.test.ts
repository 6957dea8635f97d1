/**
 * Second attack round: an MCP client that changes its name mid-session (a second `initialize` under the name of an
 * app the user lets write), beside the unlocked app where its first name is set to view only. A name is only what
 * a client says (README), but one session must not flip between rules: the app keeps the name the connection
 * said hello with, and nothing is written.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { channelApp, tempDir } from '../mcp-channel/rig';
import { callLine, handshake, PASS, RawClient } from './helpers';

describe('a client that renames itself with a second initialize', () => {
  it('keeps the rule of the name it connected with: its writes are still refused, nothing is written', async () => {
    const root = await tempDir('mnemo-rename-');
    const app = await channelApp({ dir: root, stateDir: path.join(root, 'xdg', 'mnemo') });
    const env = { XDG_STATE_HOME: path.join(root, 'xdg'), HOME: root, MNEMO_PASSPHRASE: PASS };
    await (await app.connect({ client: 'Claude Code' }))!.close();
    await (await app.connect({ client: 'Cursor' }))!.close();
    expect((await app.call('channelSetClientAccess', { client: 'Cursor', access: 'read-only' })).ok).toBe(true);
    const c = new RawClient(path.join(root, 'vault'), env);
    try {
      c.send(handshake('Cursor'));
      await c.response(0);
      c.send(callLine(1, { command: 'create', path: '/memories/a.md', file_text: 'first' }));
      expect(JSON.stringify(await c.response(1))).toContain('view only');
      c.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Claude Code', version: '1' } } }) + '\n');
      await c.response(2);
      c.send(callLine(3, { command: 'create', path: '/memories/a.md', file_text: 'renamed' }));
      c.send(callLine(4, { command: 'rename', old_path: '/memories/x.md', new_path: '/memories/y.md' }));
      const third = JSON.stringify(await c.response(3));
      expect(third).toContain('isError');
      expect(app.vault().memory.stat('/memories/a.md')).toBeUndefined();
    } finally {
      c.child.kill();
    }
  });
});
