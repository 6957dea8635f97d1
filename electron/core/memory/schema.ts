/**
 * The shape of each memory-tool input. The SDK's `betaMemoryTool` only casts
 * what the model sent, so the handlers check it themselves: a missing or
 * mistyped field becomes a clear tool error instead of a crash.
 */
import { z } from 'zod';
import { MemoryToolError } from './errors';

export const MEMORY_COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] as const;
export type MemoryCommandName = (typeof MEMORY_COMMANDS)[number];

const text = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`) });
const path = (field: string) => text(`\`${field}\``);

const SCHEMAS = {
  view: z.object({
    command: z.literal('view'),
    path: path('path'),
    view_range: z
      .array(z.number({ error: '`view_range` must hold two integers' }), { error: '`view_range` must be a list of two integers' })
      .nullish()
      .transform((v) => v ?? undefined),
  }),
  create: z.object({ command: z.literal('create'), path: path('path'), file_text: text('`file_text`') }),
  str_replace: z.object({
    command: z.literal('str_replace'),
    path: path('path'),
    old_str: text('`old_str`'),
    // A missing new_str means "replace with nothing", as the documentation describes.
    new_str: text('`new_str`')
      .nullish()
      .transform((v) => v ?? ''),
  }),
  insert: z.object({
    command: z.literal('insert'),
    path: path('path'),
    insert_line: z.number({ error: (issue) => (issue.input === undefined ? '`insert_line` is required' : '`insert_line` must be an integer') }),
    insert_text: text('`insert_text`'),
  }),
  delete: z.object({ command: z.literal('delete'), path: path('path') }),
  rename: z.object({ command: z.literal('rename'), old_path: path('old_path'), new_path: path('new_path') }),
} as const;

export type ParsedCommand<K extends MemoryCommandName> = z.output<(typeof SCHEMAS)[K]>;
export type AnyParsedCommand = { [K in MemoryCommandName]: ParsedCommand<K> }[MemoryCommandName];

function isCommandName(value: unknown): value is MemoryCommandName {
  return typeof value === 'string' && (MEMORY_COMMANDS as readonly string[]).includes(value);
}

/** The command name of a raw input, or a `MemoryToolError` saying why there is none. */
export function commandName(input: unknown): MemoryCommandName {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new MemoryToolError('The memory tool input must be an object with a `command` field.');
  }
  const command = (input as { command?: unknown }).command;
  if (command === undefined) {
    throw new MemoryToolError(`The memory tool input has no \`command\`; use one of ${MEMORY_COMMANDS.join(', ')}.`);
  }
  if (!isCommandName(command)) {
    const shown = typeof command === 'string' ? `"${command.slice(0, 40)}"` : `of type ${command === null ? 'null' : typeof command}`;
    throw new MemoryToolError(`Unknown memory command ${shown}; use one of ${MEMORY_COMMANDS.join(', ')}.`);
  }
  return command;
}

/** Checks `input` against the schema of `command`; throws a `MemoryToolError` naming each bad field. */
export function parseCommand<K extends MemoryCommandName>(command: K, input: unknown): ParsedCommand<K> {
  const result = SCHEMAS[command].safeParse(input);
  if (result.success) return result.data as ParsedCommand<K>;
  const problems = [...new Set(result.error.issues.map((issue) => issue.message))];
  throw new MemoryToolError(`Invalid input for the memory tool's ${command} command: ${problems.join('; ')}.`);
}

/** Parses any memory-tool input: the command name first, then its fields. */
export function parseAnyCommand(input: unknown): AnyParsedCommand {
  return parseCommand(commandName(input), input) as AnyParsedCommand;
}
