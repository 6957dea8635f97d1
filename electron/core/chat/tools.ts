/**
 * The memory tool as one turn uses it: every call reported to the UI when it
 * starts and ends (with a before/after diff for edits), and, in approval mode,
 * every write held until the user says yes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import type { ChatEvent, ToolRecord } from '../../shared/chat';

export type { ToolRecord } from '../../shared/chat';
import type { GuardMode } from '../../shared/settings';
import { createMemoryHandlers, type MemoryObservation } from '../memory/handlers';
import { validateMemoryPath } from '../memory/paths';
import { m, type LocalMessage } from '../i18n/message';
import { CHANGED_WHILE_WAITING_MESSAGE, describeChange, fingerprint, type ApprovalChange } from './approval-change';
import type { Provenance, VaultApi } from '../vault/types';

export interface ApprovalRequest {
  /** Minted by main for this call: never the API server's tool_use id, which a hostile server can repeat. */
  id: string;
  command: string;
  path: string;
  newPath?: string;
  preview?: string;
  /** What the change does to the memory as it is now (diff, or what a delete removes). */
  change?: ApprovalChange;
}

/** A call as the turn tracks it: `id` is main's own (what the window sees), `serverId` the tool_use id the API gave. */
interface Call {
  id: string;
  serverId: string;
  input: Record<string, unknown>;
  /** A handler invocation has been matched to this call. */
  claimed: boolean;
  observation?: MemoryObservation;
  /** The version this call's write created (from the vault's change event, inside the call's context). */
  version?: number;
  /** Why the call failed, for the user, when main knows better than the tool's result (an Allow on a stale card). */
  reason?: LocalMessage;
}

/** The paths a held change touches, while its card waits: who changed them meanwhile. */
interface Watch {
  paths: string[];
  /** Changed by something other than this turn's own calls (the user's edit, another app, a restore). */
  foreign: boolean;
  /** Changed by a change of this turn the user allowed (its cards are the user's to see, one after another). */
  own: boolean;
}

const WRITES = new Set(['create', 'str_replace', 'insert', 'delete', 'rename']);
const pathOf = (input: Record<string, unknown>) => String(input.path ?? input.old_path ?? '');

/** Tracks the tool calls of a turn and builds the handlers the runner calls. */
export class TurnTools {
  private calls: Call[] = [];
  /**
   * The call a handler invocation serves. The runner runs one reply's calls
   * concurrently and the vault applies them in whatever order they reach its
   * queue (approvals can come back in any order), so an observation is tied to
   * its call through the async context rather than by arrival order.
   */
  private readonly current = new AsyncLocalStorage<Call>();
  readonly handlers: MemoryToolHandlers;
  private readonly unsubscribe: () => void;
  private readonly watches = new Set<Watch>();

  constructor(
    private readonly vault: VaultApi,
    opts: {
      guardMode: () => GuardMode;
      emit: (e: ChatEvent) => void;
      approve?: (req: ApprovalRequest) => Promise<boolean>;
      signal?: AbortSignal;
      /** Recorded with each change this turn makes: Claude, in which conversation and turn. */
      by?: Provenance;
    },
  ) {
    const base = createMemoryHandlers(vault, { guardMode: opts.guardMode, source: 'claude', ...(opts.by ? { by: opts.by } : {}), observe: (o) => this.observed(o) });
    this.unsubscribe = vault.onChange((c) => {
      if (c.op === 'lock') return;
      const call = c.source === 'claude' ? this.current.getStore() : undefined;
      if (call && c.op === 'write') call.version = c.version;
      const touched = c.op === 'rename' ? [c.path, c.newPath] : [c.path];
      for (const w of this.watches) {
        if (!w.paths.some((p) => touched.some((t) => overlaps(p, t)))) continue;
        if (call) w.own = true;
        else w.foreign = true;
      }
    });
    const approve = opts.approve;
    const gate = async (command: string, input: Record<string, unknown>, call: Call | undefined) => {
      if (!approve) return;
      const req: ApprovalRequest = {
        id: call?.id ?? mintId(),
        command,
        // Canonical, as the tool will use them, so the card names the entry that changes.
        path: canonical(pathOf(input)),
        ...(typeof input.new_path === 'string' ? { newPath: canonical(input.new_path) } : {}),
        ...(typeof input.file_text === 'string' ? { preview: input.file_text } : typeof input.new_str === 'string' ? { preview: input.new_str } : typeof input.insert_text === 'string' ? { preview: input.insert_text } : {}),
      };
      // Taken before the card is described: an Allow applies to the memory the card showed, or to nothing.
      const paths = [req.path, req.newPath];
      const shown = printOf(vault, paths);
      const watch: Watch = { paths: paths.filter((p): p is string => p !== undefined), foreign: false, own: false };
      this.watches.add(watch);
      try {
        const change = await describeChange(vault.memory, command, input);
        if (change.diff || change.removes) req.change = change;
        opts.emit({ type: 'approval', ...req });
        const ok = await abortable(approve(req), opts.signal);
        if (!ok) throw new Error('The user declined this change to memory. Nothing was changed.');
        // The user's own edit or another app's change meanwhile would make the Allow apply to text the card never
        // showed. This turn's own allowed changes do not count: the user allowed those, card after card.
        const now = shown === undefined ? undefined : printOf(vault, paths);
        if (watch.foreign || (now !== undefined && now !== shown && !watch.own)) {
          if (call) call.reason = m('errors:memory.changedWhileWaiting');
          throw new Error(CHANGED_WHILE_WAITING_MESSAGE);
        }
      } finally {
        this.watches.delete(watch);
      }
    };
    const wrapped = {} as MemoryToolHandlers;
    for (const [name, fn] of Object.entries(base) as Array<[keyof MemoryToolHandlers, (c: never) => unknown]>) {
      (wrapped as Record<string, unknown>)[name] = async (cmd: Record<string, unknown>) => {
        const call = this.claim(cmd);
        const run = async () => {
          if (WRITES.has(name)) await gate(name, cmd, call);
          return fn(cmd as never);
        };
        return call ? this.current.run(call, run) : run();
      };
    }
    this.handlers = wrapped;
  }

  /** A new reply starts: its tool calls are tracked afresh. */
  reset(): void {
    this.calls = [];
  }

  /** The model finished a memory tool_use block with the server's id `serverId`; returns the id main gives the call. */
  started(serverId: string, input: Record<string, unknown>, emit: (e: ChatEvent) => void): string {
    const id = mintId();
    this.calls.push({ id, serverId, input, claimed: false });
    emit({ type: 'tool_start', id, command: String(input.command ?? ''), path: pathOf(input), ...(typeof input.new_path === 'string' ? { newPath: input.new_path } : {}) });
    return id;
  }

  /** The first unmatched call of this reply with exactly this input (identical calls are interchangeable). */
  private claim(input: Record<string, unknown>): Call | undefined {
    const json = JSON.stringify(input);
    const call = this.calls.find((c) => !c.claimed && (c.input === input || JSON.stringify(c.input) === json));
    if (call) call.claimed = true;
    return call;
  }

  private observed(o: MemoryObservation): void {
    const call = this.current.getStore() ?? this.calls.find((c) => !c.observation && c.input.command === o.command && pathOf(c.input) === o.path);
    if (call && !call.observation) call.observation = o;
  }

  /**
   * The runner produced the result for the call the server named `serverId`: what Claude receives, plus the diff
   * the UI shows, under main's id for the call. Undefined for a call that is not a memory call of this reply.
   */
  finished(serverId: string, content: string, isError: boolean): (ToolRecord & { serverId: string }) | undefined {
    const call = this.calls.find((c) => c.serverId === serverId);
    if (!call) return undefined;
    const input = call.input;
    const o = call.observation;
    const path = pathOf(input);
    const newPath = typeof input.new_path === 'string' ? input.new_path : undefined;
    const record: ToolRecord & { serverId: string } = { id: call.id, serverId, command: String(input.command ?? ''), path, ...(newPath ? { newPath } : {}), content, isError };
    if (isError && call.reason) record.reason = { key: call.reason.key, text: call.reason.text };
    if (!isError && o && (o.before !== undefined || o.after !== undefined) && o.command !== 'view') {
      record.diff = { before: o.before ?? '', after: o.after ?? '' };
      const meta = call.version === undefined && this.vault.isUnlocked() ? this.vault.memory.stat(newPath ?? path) : undefined;
      const version = call.version ?? (meta?.kind === 'file' ? meta.version : undefined);
      if (version !== undefined) record.version = version;
    }
    return record;
  }

  /** The turn is over: stop listening to the vault. */
  dispose(): void {
    this.unsubscribe();
  }
}

/** A call id of main's own: random, so no server can make two calls share one. */
function mintId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** The path as the memory tool will use it, or as given when the tool will refuse it anyway. */
function canonical(p: string): string {
  try {
    return validateMemoryPath(p);
  } catch {
    return p;
  }
}

/** One path is the other, or a folder holding it. */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** The fingerprint of `paths`, or undefined when they cannot be read (an invalid path, a locked vault): the tool reports that itself. */
function printOf(vault: VaultApi, paths: Array<string | undefined>): string | undefined {
  try {
    return fingerprint(vault.memory, paths);
  } catch {
    return undefined;
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
