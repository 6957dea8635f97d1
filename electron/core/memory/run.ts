/**
 * One memory-tool call, answered exactly as the SDK's tool runner would answer
 * it in the tool_result: the handler's text, or `Error: <message>` with
 * `is_error: true` for anything it throws. The CLI's `mnemo memory` prints this.
 */
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import type { BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta';
import { parseAnyCommand, type AnyParsedCommand } from './schema';
import { ROLLED_BACK_MESSAGE } from './errors';

export interface MemoryCommandResult {
  content: string;
  is_error: boolean;
}

type Content = string | Array<BetaToolResultContentBlockParam>;

/** Content blocks as one string: text as is, anything else by its type (as ToolError does). */
function asText(content: Content): string {
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ');
}

function dispatch(handlers: MemoryToolHandlers, command: AnyParsedCommand): Promise<Content> | Content {
  switch (command.command) {
    case 'view':
      return handlers.view(command);
    case 'create':
      return handlers.create(command);
    case 'str_replace':
      return handlers.str_replace(command);
    case 'insert':
      return handlers.insert(command);
    case 'delete':
      return handlers.delete(command);
    case 'rename':
      return handlers.rename(command);
  }
}

/**
 * Validates `input`, runs the matching handler and returns the tool_result
 * content. Never throws: a thrown error becomes `Error: <message>` as in the
 * SDK's toolRunner (a `ToolError` keeps its own content).
 */
export async function runMemoryCommand(handlers: MemoryToolHandlers, input: unknown): Promise<MemoryCommandResult> {
  try {
    const command = parseAnyCommand(input);
    return { content: asText(await dispatch(handlers, command)), is_error: false };
  } catch (e) {
    if (e instanceof ToolError) return { content: asText(e.content), is_error: true };
    return { content: `Error: ${e instanceof Error ? e.message : String(e)}`, is_error: true };
  }
}

/**
 * The answer to every memory command while the vault is reported as rolled
 * back: Claude is told why, and nothing is read from or written to the older copy.
 */
export function rolledBackResult(): MemoryCommandResult {
  return {
    content: `Error: ${ROLLED_BACK_MESSAGE}`,
    is_error: true,
  };
}
