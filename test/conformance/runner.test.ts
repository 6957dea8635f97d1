/**
 * `runMemoryCommand` must answer exactly as the SDK's tool runner answers when
 * it runs `betaMemoryTool(handlers)`: same content, same is_error. The SDK's
 * own `runRunnableTool` is the runner's per-call step, so it is the yardstick.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { runRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import type { BetaToolUseBlock } from '@anthropic-ai/sdk/resources/beta';
import { runMemoryCommand } from '../../electron/core/memory/run';
import { memoryTool, openTestVault, type TestVault } from '../unit/memory/helpers';

// Two vaults fed the same calls: one answered through the SDK's runner step, one through runMemoryCommand.
let viaSdk: TestVault;
let viaUs: TestVault;
beforeAll(async () => {
  [viaSdk, viaUs] = await Promise.all([openTestVault(), openTestVault()]);
});
afterAll(async () => {
  await Promise.all([viaSdk.close(), viaUs.close()]);
});

const INPUTS: unknown[] = [
  { command: 'view', path: '/memories' },
  { command: 'create', path: '/memories/r.md', file_text: 'one\ntwo\n' },
  { command: 'create', path: '/memories/r.md', file_text: 'again' },
  { command: 'view', path: '/memories/r.md', view_range: [1, -1] },
  { command: 'view', path: '/memories/r.md', view_range: [3, 1] },
  { command: 'str_replace', path: '/memories/r.md', old_str: 'two', new_str: 'TWO' },
  { command: 'str_replace', path: '/memories/r.md', old_str: 'TWO' },
  { command: 'str_replace', path: '/memories/r.md', old_str: 'missing', new_str: 'x' },
  { command: 'insert', path: '/memories/r.md', insert_line: 9, insert_text: 'x' },
  { command: 'insert', path: '/memories/r.md', insert_line: 0, insert_text: 'zero' },
  { command: 'create', path: '/memories/r.md' },
  { command: 'view', path: '/etc/passwd' },
  { command: 'view', path: '/memories/../x' },
  { command: 'rename', old_path: '/memories/r.md', new_path: '/memories/d/r.md' },
  { command: 'rename', old_path: '/memories', new_path: '/memories/x' },
  { command: 'delete', path: '/memories/d' },
  { command: 'delete', path: '/memories/d' },
  { command: 'delete', path: '/memories' },
];

describe('runMemoryCommand matches the SDK tool runner', () => {
  it('gives the same content and is_error for every call, successes and errors alike', async () => {
    const tool = betaMemoryTool(memoryTool(viaSdk.vault).handlers);
    const { handlers } = memoryTool(viaUs.vault);
    let errors = 0;
    for (const [i, input] of INPUTS.entries()) {
      const toolUse: BetaToolUseBlock = { type: 'tool_use', id: `toolu_${i}`, name: 'memory', input };
      const sdk = await runRunnableTool(tool, input, { toolUse, toolUseBlock: toolUse });
      expect(await runMemoryCommand(handlers, input), JSON.stringify(input)).toEqual({ content: sdk.content, is_error: sdk.isError });
      if (sdk.isError) errors++;
    }
    expect(errors).toBeGreaterThan(5);
  });
});
