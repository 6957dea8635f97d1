/**
 * The local channel for other apps as main runs it (plain Node: Electron and
 * the e2e harness run exactly this): it starts serving when the vault is
 * unlocked and stops before the keys go, ending every change still waiting
 * for the user unmade, telling each connection the vault locked, and writing the
 * call log. The window hears of waiting changes and of the log by events.
 */
import { CallLog, readCallLog, type ChannelCall } from '../core/mcp/calls-log';
import { ApprovalBoard } from '../core/mcp/channel-approvals';
import { ChannelError } from '../core/mcp/channel-files';
import { ChannelServer, type ChannelServerOptions } from '../core/mcp/channel-server';
import { AppChannelService } from '../core/mcp/channel-service';
import type { ChannelStatus } from '../shared/channel';
import type { AppSession } from './handlers/session';
import { keyed, m, type LocalMessage } from '../core/i18n/message';

export interface ChannelHostOptions {
  /** False: no channel is served (its calls still answer, with nothing waiting). Default: true. */
  serve?: boolean;
  /** How long a change waits for the user's decision (default two minutes; tests make it short). */
  approvalTimeoutMs?: number;
  /** How often at most the call log is written to the vault. */
  logFlushMs?: number;
  /** The server's bounds (tests make them small). */
  limits?: Partial<Pick<ChannelServerOptions, 'maxConnections' | 'maxQueue' | 'maxUnread' | 'helloTimeoutMs' | 'stopWaitMs'>>;
}

/** How often at most the window is sent the call log while calls stream in. */
const LOG_EVENT_MS = 200;

export class ChannelHost {
  readonly approvals: ApprovalBoard;
  private server: ChannelServer | undefined;
  private log: CallLog | undefined;
  private problem: LocalMessage | undefined;
  /** Starts and stops run one after another, so a lock during a start stops what the start made. */
  private chain: Promise<void> = Promise.resolve();
  private logTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: AppSession,
    private readonly opts: ChannelHostOptions = {},
  ) {
    this.approvals = new ApprovalBoard({
      onChange: (pending) => session.ctx.emit('channelApprovals', { pending }),
      ...(opts.approvalTimeoutMs !== undefined ? { timeoutMs: opts.approvalTimeoutMs } : {}),
    });
    session.watch({ unlocked: () => void this.start(), locking: () => this.stop() });
  }

  /** Serves the channel for the unlocked vault (nothing if it already serves, or serving is off). */
  start(): Promise<void> {
    const run = this.chain.then(() => this.begin());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Stops serving: waiting changes ended unmade, connections told and closed, the log written. */
  stop(): Promise<void> {
    const run = this.chain.then(() => this.end());
    this.chain = run.catch(() => undefined);
    return run;
  }

  status(): ChannelStatus {
    return { serving: this.server !== undefined, connections: this.server?.size ?? 0, ...(this.problem ? { problem: this.problem.text, problemKey: keyed(this.problem) } : {}) };
  }

  /** The call log, newest first: the live one while serving, else what the vault holds. */
  async calls(): Promise<ChannelCall[]> {
    if (this.log) return this.log.list();
    return (await readCallLog(this.session.unlocked().internal)).reverse();
  }

  private async begin(): Promise<void> {
    if (this.server || this.opts.serve === false || !this.session.isUnlocked()) return;
    this.approvals.reopen();
    const vault = this.session.unlocked();
    const log = new CallLog(vault.internal, { ...(this.opts.logFlushMs !== undefined ? { flushMs: this.opts.logFlushMs } : {}), onChange: () => this.logChanged() });
    await log.load().catch(() => undefined);
    const service = new AppChannelService({ vault: () => this.session.unlocked(), approvals: this.approvals, log, limits: this.session.limits });
    try {
      this.server = await ChannelServer.start({ stateDir: this.session.ctx.stateDir, vaultId: vault.vaultId, service, ...this.opts.limits });
      this.log = log;
      this.problem = undefined;
    } catch (e) {
      // The app works on without it; Settings says why other apps cannot reach it.
      this.problem = e instanceof ChannelError ? e.local : m('errors:channel.failed');
    }
  }

  private async end(): Promise<void> {
    // Ended before the server waits for calls in flight: a change held for the user would otherwise hold the lock.
    this.approvals.lockAll();
    const server = this.server;
    this.server = undefined;
    await server?.stop();
    this.approvals.lockAll();
    clearTimeout(this.logTimer);
    this.logTimer = undefined;
    const log = this.log;
    this.log = undefined;
    await log?.flush().catch(() => undefined);
  }

  private logChanged(): void {
    this.logTimer ??= setTimeout(() => {
      this.logTimer = undefined;
      if (this.log) this.session.ctx.emit('channelCalls', { calls: this.log.list() });
    }, LOG_EVENT_MS);
    this.logTimer.unref();
  }
}
