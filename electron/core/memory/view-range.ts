/**
 * `view_range` checking. The reference silently clamps or returns an empty
 * body for a bad range; we say what is wrong, in the wording of Anthropic's
 * text editor tool that Claude already knows.
 */
import { MemoryToolError } from './errors';

/**
 * The 1-based inclusive line range a view shows: the whole file without a
 * range, else `view_range` checked against the file's `lineCount`
 * (`-1` as the end means the last line).
 */
export function resolveViewRange(range: readonly number[] | undefined, lineCount: number): [number, number] {
  if (range === undefined) return [1, lineCount];
  if (range.length !== 2 || !range.every((n) => Number.isInteger(n))) {
    throw new MemoryToolError('Invalid `view_range`. It should be a list of two integers: [start_line, end_line], with -1 as end_line for the end of the file.');
  }
  const [first, last] = range as [number, number];
  const shown = `[${first}, ${last}]`;
  if (first < 1 || first > lineCount) {
    throw new MemoryToolError(
      `Invalid \`view_range\`: ${shown}. Its first element \`${first}\` should be within the range of lines of the file: [1, ${lineCount}]`,
    );
  }
  if (last === -1) return [first, lineCount];
  if (last > lineCount) {
    throw new MemoryToolError(
      `Invalid \`view_range\`: ${shown}. Its second element \`${last}\` should not be larger than the number of lines in the file: \`${lineCount}\` (use -1 for the end of the file)`,
    );
  }
  if (last < first) {
    throw new MemoryToolError(
      `Invalid \`view_range\`: ${shown}. Its second element \`${last}\` should be larger or equal than its first \`${first}\` (or -1 for the end of the file)`,
    );
  }
  return [first, last];
}
