/**
 * What a call over the channel does: it runs through the app's own vault
 * session, in the project the client named, with the memory tool itself
 * (createMemoryHandlers + runMemoryCommand, so the answers are the tool's own
 * words), the app's secret guard and size limits, and the client recorded as
 * the writer. So the change appears live in the window and reaches the review
 * inbox as any write does. In approval mode a write waits for the user's
 * decision in the window; a read-only connection may only view.
 */
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { CHANGED_WHILE_WAITING_MESSAGE, describeChange, fingerprint } from '../chat/approval-change';
import { loadSettings } from '../chat/settings-store';
import { MemoryToolError, ROLLED_BACK_MESSAGE, toToolError } from '../memory/errors';
import { createMemoryHandlers } from '../memory/handlers';
import type { MemoryLimits } from '../memory/limits';
import { MEMORY_ROOT, MemoryPathError, validateMemoryPath } from '../memory/paths';
import { runMemoryCommand } from '../memory/run';
import type { MemoryScope } from '../projects/scope';
import { Projects } from '../projects/store';
import { VaultError, type Provenance, type VaultApi } from '../vault/types';
import type { Settings } from '../../shared/settings';
import type { CallOptions, MemoryCommandAnswer } from './backend';
import type { CallLog } from './calls-log';
import type { ApprovalBoard } from './channel-approvals';
import { ChannelRequestError, type ChannelService, type ChannelSession, type RefusalCode } from './channel-connection';
import { accessOf, currentAccess, newClientAccess } from './client-rules';
import { cleanClientName, type ClientMessage } from './protocol';

type Hello = Extract<ClientMessage, { type: 'hello' }>;

/** The chat's own words when the user says no (electron/core/chat/tools.ts), so Claude reads a denial the same way. */
export const DECLINED_MESSAGE = 'The user declined this change to memory. Nothing was changed.';
export const NOT_IN_TIME_MESSAGE = 'The change was not approved in time; nothing was changed.';
/** When the vault locks while a change waits: nobody declined it, and it can no longer be approved. */
export const LOCKED_WHILE_WAITING_MESSAGE = 'Mnemo was locked before this change was approved; nothing was changed.';
/** When what the card showed is no longer what the change would do (shared with the chat's own cards). */
export { CHANGED_WHILE_WAITING_MESSAGE };
/** Logged (the client that cancelled no longer reads an answer) when a change is withdrawn before the user decided. */
export const CANCELLED_MESSAGE = 'The call was cancelled before the user approved the change; nothing was changed.';
export const MCP_OFF_MESSAGE = 'MCP access is off in Mnemo’s Settings (Use this memory in other apps); turn it on there to use this memory from other apps.';
export const LOCKED_MESSAGE = 'Mnemo is locked; unlock it, or give mnemo the passphrase (MNEMO_PASSPHRASE or --passphrase-file).';
/** Why a connection may only view: the access level (or `--read-only`), or the user's rule for this app. */
type ReadOnlyWhy = 'access' | 'client';
const readOnlyMessage = (client: string, why: ReadOnlyWhy) =>
  `Mnemo lets ${client} view this memory but not change it (${why === 'client' ? `${client} is set to view only in Mnemo’s Settings` : 'MCP access is read-only'}). Nothing was written; tell the user if something should be remembered.`;
/** What an app Mnemo has not seen before may do, by the user's setting. */

const WRITES = ['create', 'str_replace', 'insert', 'delete', 'rename'] as const;
const COMMANDS = new Set<string>(['view', ...WRITES]);

export interface AppChannelOptions {
  /** The app's vault while unlocked; throws (LOCKED) otherwise. */
  vault(): VaultApi;
  approvals: ApprovalBoard;
  log: CallLog;
  /** The memory tool's size limits, as the app holds Claude's writes to them. */
  limits?: Partial<MemoryLimits>;
}

/** Who a connection is and where it works. */
interface Peer {
  client: string;
  via: 'mcp' | 'cli';
  readOnly: boolean;
  project: { id: string; name: string };
  scope: MemoryScope;
}

const canonical = (p: unknown): string | undefined => {
  try {
    return typeof p === 'string' ? validateMemoryPath(p) : undefined;
  } catch {
    return undefined;
  }
};

/** A project name as the client gave it, safe to say back: visible characters, at most 100. */
const sayName = (name: string) => [...cleanClientName(name)].slice(0, 100).join('');

/** The channel's service over the app's vault session. */
export class AppChannelService implements ChannelService {
  constructor(private readonly opts: AppChannelOptions) {}

  async open(hello: Hello): Promise<ChannelSession | { refused: RefusalCode; message: string }> {
    let vault: VaultApi;
    try {
      vault = this.opts.vault();
    } catch {
      return { refused: 'LOCKED', message: LOCKED_MESSAGE };
    }
    const settings = await loadSettings(vault);
    if (settings.mcpAccess === 'off') return { refused: 'MCP_OFF', message: MCP_OFF_MESSAGE };
    const projects = new Projects(vault);
    let project: { id: string; name: string };
    try {
      project = hello.projectId !== undefined ? await projects.require(hello.projectId) : hello.project !== undefined ? await projects.byName(hello.project) : (await projects.list())[0]!;
    } catch {
      if (hello.projectId !== undefined) return { refused: 'NO_PROJECT', message: `Mnemo has no project with the id ${sayName(hello.projectId)} (it may have been deleted). Copy the configuration again from Mnemo’s Settings.` };
      return { refused: 'NO_PROJECT', message: `Mnemo has no project named “${sayName(hello.project ?? '')}”. Check the name in Mnemo (the project list in the chat’s sidebar).` };
    }
    const peer: Peer = {
      client: hello.via === 'mcp' ? cleanClientName(hello.client) : 'mnemo memory',
      via: hello.via,
      readOnly: hello.readOnly,
      project: { id: project.id, name: project.name },
      scope: await projects.memoryScope(project.id),
    };
    // Remembered by name at its first connection, so the user can find it in Settings and set what it may do.
    const rule = await accessOf(vault.internal, peer.client, newClientAccess(settings));
    return this.session(vault, peer, peer.readOnly || settings.mcpAccess === 'read-only' || rule === 'read-only');
  }

  private session(vault: VaultApi, peer: Peer, readOnly: boolean): ChannelSession {
    const log = (command: string, ok: boolean, path?: string, newPath?: string) =>
      this.opts.log.add({ at: Date.now(), client: peer.client, via: peer.via, project: peer.project.name, command, ok, ...(path ? { path } : {}), ...(newPath ? { newPath } : {}) });
    return {
      project: peer.project.name,
      readOnly,
      call: async (input, opts) => {
        const o = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
        const command = typeof o.command === 'string' && COMMANDS.has(o.command) ? o.command : 'invalid';
        let answer: MemoryCommandAnswer & { readOnly?: boolean };
        try {
          answer = await this.call(peer, input, opts);
        } catch {
          answer = { content: 'Error: The call failed because of an unexpected problem in Mnemo. Nothing more is known; try again.', is_error: true };
        }
        log(command, !answer.is_error, canonical(command === 'rename' ? o.old_path : o.path), command === 'rename' ? canonical(o.new_path) : undefined);
        return answer;
      },
      list: async () => {
        const { memory } = await this.memory(peer);
        return memory.memory.list(MEMORY_ROOT, Infinity).flatMap((e) => (e.kind === 'file' ? [{ path: e.path, size: e.size, modified: e.modified }] : []));
      },
      read: async (path) => {
        let ok = false;
        try {
          const { memory } = await this.memory(peer);
          const p = validateMemoryPath(path);
          const text = await memory.memory.readFile(p);
          ok = true;
          return text;
        } catch (e) {
          if (e instanceof ChannelRequestError) throw e;
          if (e instanceof MemoryPathError) throw new ChannelRequestError('BAD_PATH', e.message);
          if (e instanceof VaultError) throw new ChannelRequestError(e.code, e.code === 'LOCKED' ? LOCKED_MESSAGE : e.message);
          throw new ChannelRequestError('INTERNAL', 'The memory could not be read because of an unexpected problem in Mnemo.');
        } finally {
          log('read', ok, canonical(path));
        }
      },
      onChange: (listener) => {
        // Paths of one moment go out as one frame: a delete of a folder is one `changed`, not hundreds.
        let batch: Set<string> | undefined;
        return vault.onChange((c) => {
          const mine = c.op === 'lock' ? undefined : peer.scope.change(c);
          if (!mine || mine.op === 'lock') return;
          if (!batch) {
            batch = new Set();
            setImmediate(() => {
              const paths = [...batch!];
              batch = undefined;
              listener(paths);
            });
          }
          batch.add(mine.path);
          if (mine.op === 'rename') batch.add(mine.newPath);
        });
      },
    };
  }

  /**
   * The project's memory now, with the settings it is used under: if the vault is unlocked, access is not
   * off, it is not rolled back and the project still exists (else a ChannelRequestError saying which).
   * The settings are read on every request, so a change in Settings applies to an open connection's next one.
   */
  private async memory(peer: Peer): Promise<{ memory: VaultApi; settings: Settings; readOnly: ReadOnlyWhy | undefined }> {
    let vault: VaultApi;
    try {
      vault = this.opts.vault();
    } catch {
      throw new ChannelRequestError('LOCKED', LOCKED_MESSAGE);
    }
    const settings = await loadSettings(vault);
    if (settings.mcpAccess === 'off') throw new ChannelRequestError('MCP_OFF', MCP_OFF_MESSAGE);
    // As for Claude: nothing is read from (or written to) an older copy until the user accepts it.
    if (vault.isRolledBack()) throw new ChannelRequestError('ROLLED_BACK', ROLLED_BACK_MESSAGE);
    const memory = await new Projects(vault).memoryVault(peer.project.id).catch(() => {
      throw new ChannelRequestError('NO_PROJECT', `The project “${peer.project.name}” was deleted in Mnemo.`);
    });
    const rule = await currentAccess(vault.internal, peer.client, newClientAccess(settings));
    const readOnly = peer.readOnly || settings.mcpAccess === 'read-only' ? 'access' : rule === 'read-only' ? 'client' : undefined;
    return { memory, settings, readOnly };
  }

  /**
   * One memory-tool call, answered as the memory tool answers (never throws for a bad call), with whether this
   * connection may only view now (so `mnemo mcp` can say so in its tool's annotations).
   */
  private async call(peer: Peer, input: unknown, opts: CallOptions = {}): Promise<MemoryCommandAnswer & { readOnly?: boolean }> {
    let memory: VaultApi;
    let settings: Settings;
    let readOnly: ReadOnlyWhy | undefined;
    try {
      ({ memory, settings, readOnly } = await this.memory(peer));
    } catch (e) {
      // Locked: the memory tool's own words for it; anything else says what the app refuses.
      if (e instanceof ChannelRequestError && e.code === 'LOCKED') return { content: `Error: ${toToolError(new VaultError('LOCKED', 'locked'), { command: 'memory', path: MEMORY_ROOT }).message}`, is_error: true };
      return { content: `Error: ${(e as Error).message}`, is_error: true };
    }
    const by: Provenance = peer.via === 'mcp' ? { kind: 'mcp', client: peer.client } : { kind: 'cli' };
    const base = createMemoryHandlers(memory, { guardMode: () => settings.guardMode, source: 'cli', by, ...(this.opts.limits ? { limits: this.opts.limits } : {}) });
    const handlers = readOnly ? refuseWrites(base, readOnlyMessage(peer.client, readOnly)) : settings.approvalMode ? this.gated(base, memory, peer, opts) : base;
    return { ...(await runMemoryCommand(handlers, input)), readOnly: readOnly !== undefined };
  }

  /** The handlers with every write held until the user decides in the window, or the client stops waiting (`opts`). */
  private gated(base: MemoryToolHandlers, memory: VaultApi, peer: Peer, opts: CallOptions): MemoryToolHandlers {
    const gate = async (command: string, cmd: Record<string, unknown>) => {
      const path = canonical(command === 'rename' ? cmd.old_path : cmd.path);
      // A path the tool refuses changes nothing: it gets the tool's own error, without asking anyone.
      if (path === undefined) return;
      const newPath = command === 'rename' ? canonical(cmd.new_path) : undefined;
      const preview = [cmd.file_text, cmd.new_str, cmd.insert_text].find((t): t is string => typeof t === 'string');
      // Taken before the card is described: an Allow applies to the memory the card showed, or to nothing.
      const shown = fingerprint(memory.memory, [path, newPath]);
      const change = await describeChange(memory.memory, command, cmd);
      const decision = await this.opts.approvals.ask(
        {
          client: peer.client,
          via: peer.via,
          project: peer.project.id,
          projectName: peer.project.name,
          command,
          path,
          ...(newPath !== undefined ? { newPath } : {}),
          ...(preview !== undefined ? { preview } : {}),
          ...(change.diff || change.removes ? { change } : {}),
        },
        opts,
      );
      if (decision === 'deny') throw new MemoryToolError(DECLINED_MESSAGE);
      if (decision === 'timeout') throw new MemoryToolError(NOT_IN_TIME_MESSAGE);
      if (decision === 'cancelled') throw new MemoryToolError(CANCELLED_MESSAGE);
      if (decision === 'locked') throw new MemoryToolError(LOCKED_WHILE_WAITING_MESSAGE);
      // Access may have been narrowed while the change waited: what the user set last wins over an Allow on an older card.
      const vault = this.opts.vault();
      const settings = await loadSettings(vault);
      if (settings.mcpAccess === 'off') throw new MemoryToolError(`${MCP_OFF_MESSAGE} Nothing was changed.`);
      if (settings.mcpAccess === 'read-only') throw new MemoryToolError(readOnlyMessage(peer.client, 'access'));
      if ((await currentAccess(vault.internal, peer.client, newClientAccess(settings))) === 'read-only') throw new MemoryToolError(readOnlyMessage(peer.client, 'client'));
      // Another change allowed first, or the user's own edit, would make the Allow apply to a file the card never showed.
      if (fingerprint(memory.memory, [path, newPath]) !== shown) throw new MemoryToolError(CHANGED_WHILE_WAITING_MESSAGE);
    };
    const wrap =
      <C>(command: string, fn: (c: C) => ReturnType<MemoryToolHandlers['create']>) =>
      async (c: C) => {
        await gate(command, c as Record<string, unknown>);
        return fn(c);
      };
    return {
      view: (c) => base.view(c),
      create: wrap('create', (c) => base.create(c)),
      str_replace: wrap('str_replace', (c) => base.str_replace(c)),
      insert: wrap('insert', (c) => base.insert(c)),
      delete: wrap('delete', (c) => base.delete(c)),
      rename: wrap('rename', (c) => base.rename(c)),
    };
  }
}

/** `view` as usual; every write answered with `message` and nothing changed. */
function refuseWrites(handlers: MemoryToolHandlers, message: string): MemoryToolHandlers {
  const refuse = (): never => {
    throw new MemoryToolError(message);
  };
  return { view: (c) => handlers.view(c), create: refuse, str_replace: refuse, insert: refuse, delete: refuse, rename: refuse };
}
