/**
 * `mnemo chat` against a server that answers every request with another
 * memory call: the turn stops at the round limit with a clear message, and
 * `--continue` carries on from there.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TOOL_ROUNDS } from '../../../electron/shared/settings';
import { memoryCall, reply, text, type FakeAnthropic } from '../../fake-anthropic/server';
import { vaultAndFakeForFile, mnemo, type VaultAndFake } from './helpers';

let v: VaultAndFake['v'];
let fake: FakeAnthropic;
let env: NodeJS.ProcessEnv;
vaultAndFakeForFile((s) => ({ v, fake, env } = s));

const run = (args: string[]) => mnemo([...args, '--vault', v.vault], { env });

describe('mnemo chat and the round limit', () => {
  it('a server that never stops calling tools is stopped at the limit; --continue runs the next rounds', async () => {
    fake.otherwise(() => reply(memoryCall({ command: 'view', path: '/memories' })));
    const r = await run(['chat', '--once', 'Loop.']);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(DEFAULT_MAX_TOOL_ROUNDS);
    expect(r.stderr).toContain(`after ${DEFAULT_MAX_TOOL_ROUNDS} rounds`);
    const id = /mnemo chat --conversation ([0-9a-f]+) --continue/.exec(r.stderr)?.[1];
    expect(id).toBeDefined();

    fake.otherwise(undefined);
    fake.script(reply(text('Finally done.')));
    const more = await run(['chat', '--conversation', id!, '--continue']);
    expect(more.stderr).toBe('');
    expect(more.code).toBe(0);
    expect(more.stdout).toContain('Finally done.');
    expect(fake.requests).toHaveLength(DEFAULT_MAX_TOOL_ROUNDS + 1);
  }, 120_000);
});
