/**
 * The app's end of the local channel (protocol.ts): plain Node `net`, so it
 * runs in Electron's main process and in the test harness alike. It serves
 * while the vault is unlocked: it listens, then writes the token file; `stop`
 * tells every connection the vault locked, closes them, and removes both
 * files. What a call does is the service's business (channel-service.ts);
 * this file keeps the channel bounded: the frame size, the number of
 * connections, one call at a time per connection with a short queue, and a
 * peer that does not read is cut off (each connection is served in
 * channel-connection.ts).
 */
import net from 'node:net';
import { Connection, type ChannelService } from './channel-connection';
import { listenOn, prepareStateDir, removeSocket, removeToken, writeToken } from './channel-files';
import { channelFiles, MAX_FRAME_BYTES } from './protocol';

export interface ChannelServerOptions {
  stateDir: string;
  vaultId: string;
  service: ChannelService;
  platform?: NodeJS.Platform;
  /** Connections served at once; one more is refused BUSY. */
  maxConnections?: number;
  /** Requests a connection may have waiting behind the one being served; more are answered with an error at once. */
  maxQueue?: number;
  /** Bytes a peer may leave unread before it is cut off. */
  maxUnread?: number;
  /**
   * Bytes of requests all connections together may have waiting; past it, a connection that sends more is not
   * read from until the queues drain (its writes block in the kernel: it is slowed, the app keeps its memory).
   */
  maxQueuedBytes?: number;
  /** How long a new connection has to say hello. */
  helloTimeoutMs?: number;
  /** How long `stop` waits for calls being served to finish. */
  stopWaitMs?: number;
}

export const CHANNEL_LIMITS = { maxConnections: 16, maxQueue: 32, maxUnread: 2 * MAX_FRAME_BYTES, maxQueuedBytes: 4 * MAX_FRAME_BYTES, helloTimeoutMs: 10_000, stopWaitMs: 10_000 };

const posix = (platform: NodeJS.Platform) => platform !== 'win32';

/** Serves the channel for one vault; `ChannelServer.start` listens and writes the token, `stop` ends it all. */
export class ChannelServer {
  private readonly connections = new Set<Connection>();
  private readonly server: net.Server;
  readonly limits: typeof CHANNEL_LIMITS;
  readonly service: ChannelService;
  /** The token clients must present; undefined once stopping. */
  token: string | undefined;
  stopping = false;
  /** Bytes of requests waiting in every connection's queue. */
  private queuedBytes = 0;
  private readonly files: ReturnType<typeof channelFiles>;
  private readonly platform: NodeJS.Platform;

  private constructor(opts: ChannelServerOptions) {
    this.platform = opts.platform ?? process.platform;
    this.files = channelFiles(opts.stateDir, opts.vaultId, this.platform);
    this.service = opts.service;
    this.limits = {
      maxConnections: opts.maxConnections ?? CHANNEL_LIMITS.maxConnections,
      maxQueue: opts.maxQueue ?? CHANNEL_LIMITS.maxQueue,
      maxUnread: opts.maxUnread ?? CHANNEL_LIMITS.maxUnread,
      maxQueuedBytes: opts.maxQueuedBytes ?? CHANNEL_LIMITS.maxQueuedBytes,
      helloTimeoutMs: opts.helloTimeoutMs ?? CHANNEL_LIMITS.helloTimeoutMs,
      stopWaitMs: opts.stopWaitMs ?? CHANNEL_LIMITS.stopWaitMs,
    };
    this.server = net.createServer((socket) => this.accept(socket));
    // Never what keeps a process alive: the app's window (or the test) decides that.
    this.server.unref();
  }

  /** Prepares the state folder, listens on the socket, then writes the token file (clients look for the token first). */
  static async start(opts: ChannelServerOptions): Promise<ChannelServer> {
    const server = new ChannelServer(opts);
    await prepareStateDir(opts.stateDir, server.platform);
    await listenOn(server.server, server.files.socket, server.platform);
    try {
      server.token = await writeToken(server.files.token);
    } catch (e) {
      await server.stop();
      throw e;
    }
    return server;
  }

  /** Connections open now. */
  get size(): number {
    return this.connections.size;
  }

  private accept(socket: net.Socket): void {
    socket.unref();
    const connection = new Connection(socket, this);
    if (this.stopping) return connection.finish({ type: 'locked' });
    if (this.connections.size >= this.limits.maxConnections) {
      return connection.finish({ type: 'refused', code: 'BUSY', message: 'Mnemo is serving as many other apps as it will at once; close one and try again.' });
    }
    this.connections.add(connection);
  }

  forget(connection: Connection): void {
    this.connections.delete(connection);
  }

  /**
   * Adds (or, negative, gives back) bytes of queued requests; true when the total is over the budget. Once it is
   * back under, every connection held back reads again.
   */
  weigh(bytes: number): boolean {
    this.queuedBytes += bytes;
    const over = this.queuedBytes > this.limits.maxQueuedBytes;
    if (!over && bytes < 0) {
      for (const c of this.connections) {
        if (!c.heldBack) continue;
        c.heldBack = false;
        c.readOn();
      }
    }
    return over;
  }

  /** Bytes of requests waiting now (for tests and the app's own checks). */
  get waitingBytes(): number {
    return this.queuedBytes;
  }

  /**
   * Stops serving: the token file goes first (no new client tries), then the
   * listener; queued requests are answered unrun, those being served are given
   * a while to finish, and every connection gets `locked` and is closed.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const token = this.token;
    this.token = undefined;
    if (token) await removeToken(this.files.token, token, this.platform).catch(() => undefined);
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.connections) c.dropQueue();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.limits.stopWaitMs)));
    await Promise.race([Promise.allSettled([...this.connections].map((c) => c.running)), late]).finally(() => clearTimeout(timer));
    // Each gets `locked`; a peer that reads nothing is cut off a second later (finish), so the listener can close.
    for (const c of this.connections) c.finish({ type: 'locked' });
    await closed;
    this.connections.clear();
    // Closing the listener removes its socket file; a file left all the same is removed if it is still a socket.
    if (posix(this.platform)) await removeSocket(this.files.socket);
  }
}
