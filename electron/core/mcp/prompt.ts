/**
 * The `memory-protocol` prompt: what the app tells Claude about its memory in
 * the system prompt (chat/prompt.ts), for a client whose model gets the
 * memory tool through MCP instead. Claude's API adds the memory protocol
 * itself when the memory tool is declared natively; an MCP client's model
 * gets nothing of the kind unless the user picks this prompt.
 */
import { MEMORY_RULES } from '../chat/prompt';

export const MEMORY_PROMPT_NAME = 'memory-protocol';

/** The protocol as the memory tool's documentation words it, then the user's guidance and the app's rules. */
export function memoryPromptText(guidance: string): string {
  return [
    'You have a long-term memory: the `memory` tool, whose files live under /memories in the user’s encrypted Mnemo vault on this computer. The user can read, edit and undo every memory file.',
    '',
    'IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE.',
    'MEMORY PROTOCOL:',
    '1. Use the `view` command of your `memory` tool to check for earlier progress.',
    '2. As you make progress on the task, record status, progress and thoughts in your memory.',
    'ASSUME INTERRUPTION: your context window might be reset at any moment, so you risk losing any progress that is not recorded in your memory directory.',
    '',
    'How to use memory (the user’s guidance):',
    guidance.trim(),
    '',
    'Rules that always apply:',
    ...MEMORY_RULES,
  ].join('\n');
}
