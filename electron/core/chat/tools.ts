/**
 * The memory tool as one turn uses it: every call reported to the UI when it
 * starts and ends (with a before/after diff for edits), and, in approval mode,
 * every write held until the user says yes.
 */
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { ChatEvent, ToolRecord } from '../../shared/chat';

export type { ToolRecord } from '../../shared/chat';
import type { GuardMode } from '../../shared/settings';
import { createMemoryHandlers, type MemoryObservation } from '../memory/handlers';
import type { VaultApi } from '../vault/types';

export interface ApprovalRequest {
  id: string;
  command: string;
  path: string;
  newPath?: string;
  preview?: string;
}


interface Call {
  id: string;
  input: Record<string, unknown>;
  approvalAsked: boolean;
  observation?: MemoryObservation;
}

const WRITES = new Set(['create', 'str_replace', 'insert', 'delete', 'rename']);
const pathOf = (input: Record<string, unknown>) => String(input.path ?? input.old_path ?? '');

/** Tracks the tool calls of a turn and builds the handlers the runner calls. */
export class TurnTools {
  private calls: Call[] = [];
  readonly handlers: MemoryToolHandlers;

  constructor(
    private readonly vault: VaultApi,
    opts: {
      guardMode: () => GuardMode;
      emit: (e: ChatEvent) => void;
      approve?: (req: ApprovalRequest) => Promise<boolean>;
      signal?: AbortSignal;
    },
  ) {
    const base = createMemoryHandlers(vault, { guardMode: opts.guardMode, source: 'claude', observe: (o) => this.observed(o) });
    const approve = opts.approve;
    if (!approve) {
      this.handlers = base;
      return;
    }
    const gate = async (command: string, input: Record<string, unknown>) => {
      const call = this.calls.find((c) => !c.approvalAsked && c.input.command === command && JSON.stringify(c.input) === JSON.stringify(input));
      if (call) call.approvalAsked = true;
      const req: ApprovalRequest = {
        id: call?.id ?? '',
        command,
        path: pathOf(input),
        ...(typeof input.new_path === 'string' ? { newPath: input.new_path } : {}),
        ...(typeof input.file_text === 'string' ? { preview: input.file_text } : typeof input.new_str === 'string' ? { preview: input.new_str } : typeof input.insert_text === 'string' ? { preview: input.insert_text } : {}),
      };
      opts.emit({ type: 'approval', ...req });
      const ok = await abortable(approve(req), opts.signal);
      if (!ok) throw new Error('The user declined this change to memory. Nothing was changed.');
    };
    const gated = {} as MemoryToolHandlers;
    for (const [name, fn] of Object.entries(base) as Array<[keyof MemoryToolHandlers, (c: never) => unknown]>) {
      (gated as Record<string, unknown>)[name] = WRITES.has(name)
        ? async (cmd: Record<string, unknown>) => {
            await gate(name, cmd);
            return fn(cmd as never);
          }
        : fn;
    }
    this.handlers = gated;
  }

  /** A new reply starts: its tool calls are tracked afresh. */
  reset(): void {
    this.calls = [];
  }

  /** The model finished a tool_use block. */
  started(id: string, input: Record<string, unknown>, emit: (e: ChatEvent) => void): void {
    this.calls.push({ id, input, approvalAsked: false });
    emit({ type: 'tool_start', id, command: String(input.command ?? ''), path: pathOf(input), ...(typeof input.new_path === 'string' ? { newPath: input.new_path } : {}) });
  }

  private observed(o: MemoryObservation): void {
    const call = this.calls.find((c) => !c.observation && c.input.command === o.command && pathOf(c.input) === o.path);
    if (call) call.observation = o;
  }

  /** The runner produced the result for `id`: what Claude receives, plus the diff the UI shows. */
  finished(id: string, content: string, isError: boolean): ToolRecord {
    const call = this.calls.find((c) => c.id === id);
    const input = call?.input ?? {};
    const o = call?.observation;
    const path = pathOf(input);
    const newPath = typeof input.new_path === 'string' ? input.new_path : undefined;
    const record: ToolRecord = { id, command: String(input.command ?? ''), path, ...(newPath ? { newPath } : {}), content, isError };
    if (!isError && o && (o.before !== undefined || o.after !== undefined) && o.command !== 'view') {
      record.diff = { before: o.before ?? '', after: o.after ?? '' };
      const meta = this.vault.isUnlocked() ? this.vault.memory.stat(newPath ?? path) : undefined;
      if (meta?.kind === 'file') record.version = meta.version;
    }
    return record;
  }

  /** Calls of the current reply that have no result yet (a stop in the middle). */
  pending(done: Set<string>): Array<{ id: string; ran: boolean }> {
    return this.calls.filter((c) => !done.has(c.id)).map((c) => ({ id: c.id, ran: c.observation !== undefined }));
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new DOMException('Stopped', 'AbortError'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException('Stopped', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
