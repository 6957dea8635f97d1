/**
 * Runs the same memory-tool inputs against the SDK's reference
 * (`BetaLocalFilesystemMemoryTool` on a temp dir) and against ours (the real
 * vault), both through `runMemoryCommand`, so their tool_results can be
 * compared string for string.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { runMemoryCommand, type MemoryCommandResult } from '../../electron/core/memory/run';
import { memoryTool, openTestVault, tempDir, type TestVault } from '../unit/memory/helpers';

export interface Pair {
  reference: BetaLocalFilesystemMemoryTool;
  /** The reference's /memories on the host, to inspect its state. */
  referenceRoot: string;
  /** The temp dir the reference lives in (its host paths must never appear in our answers). */
  referenceBase: string;
  ours: TestVault;
  runReference(input: unknown): Promise<MemoryCommandResult>;
  runOurs(input: unknown): Promise<MemoryCommandResult>;
  /** Empties both stores. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function openPair(): Promise<Pair> {
  const referenceBase = await tempDir('mnemo-reference-');
  const referenceRoot = path.join(referenceBase, 'memories');
  const reference = await BetaLocalFilesystemMemoryTool.init(referenceBase);
  const ours = await openTestVault();
  const { run } = memoryTool(ours.vault);
  return {
    reference,
    referenceRoot,
    referenceBase,
    ours,
    runReference: (input) => runMemoryCommand(reference, input),
    runOurs: run,
    reset: async () => {
      await fs.rm(referenceRoot, { recursive: true, force: true });
      await fs.mkdir(referenceRoot, { recursive: true });
      await ours.clear();
    },
    close: async () => {
      await ours.close();
      await fs.rm(referenceBase, { recursive: true, force: true });
    },
  };
}

const LISTING = "Here're the files and directories up to 2 levels deep in ";

/**
 * Directory sizes differ by design (the reference prints the host's directory
 * size, e.g. 4.0K; we print the bytes of the files below): blank only those.
 */
export function normalise(result: MemoryCommandResult): MemoryCommandResult {
  if (result.is_error || !result.content.startsWith(LISTING)) return result;
  const [header, first, ...rest] = result.content.split('\n');
  const dirLine = (line: string) => line.replace(/^[^\t]*\t/, '<dir>\t');
  const lines = [dirLine(first ?? ''), ...rest.map((line) => (line.endsWith('/') ? dirLine(line) : line))];
  return { ...result, content: [header, ...lines].join('\n') };
}

export interface Step {
  input: unknown;
  reference: MemoryCommandResult;
  ours: MemoryCommandResult;
}

/** Runs `inputs` one after another on both sides and returns every answer pair (normalised). */
export async function runBoth(pair: Pair, inputs: readonly unknown[]): Promise<Step[]> {
  const steps: Step[] = [];
  for (const input of inputs) {
    const reference = normalise(await pair.runReference(input));
    const ours = normalise(await pair.runOurs(input));
    steps.push({ input, reference, ours });
  }
  return steps;
}

/** The first step where the answers differ, described for a failure message; undefined if none. */
export function firstDifference(steps: readonly Step[]): string | undefined {
  const i = steps.findIndex((s) => s.reference.content !== s.ours.content || s.reference.is_error !== s.ours.is_error);
  if (i === -1) return undefined;
  const s = steps[i] as Step;
  return `step ${i}: ${JSON.stringify(s.input)}\nreference: ${JSON.stringify(s.reference)}\nours:      ${JSON.stringify(s.ours)}`;
}
