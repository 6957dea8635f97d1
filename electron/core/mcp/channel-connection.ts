/**
 * One connection to the local channel as the server (channel-server.ts) serves
 * it: the hello and its token checked, then the service's session
 * (ChannelService, ChannelSession) answering the client's requests one at a
 * time, a short queue behind, cancels heard at once, and what is answered to a
 * request that is not run (locked, busy, cancelled, too long).
 */
import { timingSafeEqual } from 'node:crypto';
import type net from 'node:net';
import type { CallOptions, MemoryCommandAnswer } from './backend';
import { FrameReader, writeFrame } from './channel-frames';
import type { ChannelServer } from './channel-server';
import { CHANNEL_VERSION, ClientMessage, MAX_FRAME_BYTES, type FileInfo, type ServerMessage } from './protocol';

type Hello = Extract<ClientMessage, { type: 'hello' }>;
type Request = Exclude<ClientMessage, { type: 'hello' } | { type: 'cancel' }>;
export type RefusalCode = Extract<ServerMessage, { type: 'refused' }>['code'];

/** An error answered to a `read` or `list` request, with a code the client can act on and a message meant for it. */
export class ChannelRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChannelRequestError';
  }
}

/** One welcomed connection's calls, served against the app's vault. */
export interface ChannelSession {
  /** The project's name, as the welcome says it. */
  readonly project: string;
  /** Whether the connection may only view, as things stood when it opened (the welcome says it). */
  readonly readOnly?: boolean;
  /** `signal` aborts when the client cancels or its connection closes; `deadline` is when its client stops waiting. */
  call(input: unknown, opts?: CallOptions): Promise<MemoryCommandAnswer & { readOnly?: boolean }>;
  list(): Promise<FileInfo[]>;
  /** Throws a ChannelRequestError (NOT_FOUND, BAD_PATH, LOCKED, …) for the client. */
  read(path: string): Promise<string>;
  /** Paths (as the project sees them) that changed; returns an unsubscribe. */
  onChange(listener: (paths: string[]) => void): () => void;
}

/** Decides a hello whose token and version are right: a session, or why not. */
export interface ChannelService {
  open(hello: Hello): Promise<ChannelSession | { refused: RefusalCode; message: string }>;
}

/** What a queued call is answered with when the vault locks before it runs. */
const LOCKED_ANSWER: MemoryCommandAnswer = { content: 'Error: The memory vault was locked in Mnemo before this call ran; nothing was changed.', is_error: true };
const BUSY_ANSWER: MemoryCommandAnswer = { content: 'Error: Too many memory calls are waiting in Mnemo; this one was not run. Wait for the earlier ones to finish, then try again.', is_error: true };
/** What a call is answered with when its client cancels it before it ran (the client no longer waits for it). */
const CANCELLED_ANSWER: MemoryCommandAnswer = { content: 'Error: The call was cancelled before it ran; nothing was changed.', is_error: true };
const TOO_LONG_ANSWER: MemoryCommandAnswer = { content: 'Error: The answer was too long to send over the channel; view a smaller part (view_range) or a subfolder.', is_error: true };

/** The most a peer may send before its hello is read: a hello holds a token and two names of at most 1 KiB each. */
const MAX_HELLO_BYTES = 16 * 1024;

const sameToken = (given: string, expected: string): boolean => {
  const a = Buffer.from(given, 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
};

export class Connection {
  private readonly reader: FrameReader;
  private session: ChannelSession | undefined;
  private stopWatching: (() => void) | undefined;
  /** Requests waiting behind the one served, with their size (for the server's budget) and when they came. */
  private readonly queue: Array<{ request: Request; weight: number; arrived: number }> = [];
  /** The request being served, and how to tell it its client has stopped waiting. */
  private current: { id: number; abort: AbortController } | undefined;
  /** Reading stops while the hello is decided, and while the server's queued bytes are over their budget. */
  private awaitingHello = false;
  heldBack = false;
  /** The request being served, if any. */
  running: Promise<void> | undefined;
  private helloTimer: NodeJS.Timeout | undefined;
  private greeted = false;
  private beforeHello = 0;
  /**
   * Answers to requests that came right behind the hello and were answered unrun (cancelled, over the queue) before
   * it was decided: sent after the welcome, never before it, and never to a connection that is refused.
   */
  private early: Array<() => void> = [];

  constructor(
    readonly socket: net.Socket,
    private readonly server: ChannelServer,
  ) {
    this.reader = new FrameReader(MAX_FRAME_BYTES, (line) => this.onLine(line), () => this.close());
    socket.on('data', (chunk: Buffer) => {
      this.reader.push(chunk);
      // Before its token is checked, a peer gets a hello's worth of buffer, not a whole frame's.
      if (!this.greeted && (this.beforeHello += chunk.length) > MAX_HELLO_BYTES) this.close();
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.closed());
    this.helloTimer = setTimeout(() => this.close(), server.limits.helloTimeoutMs);
    this.helloTimer.unref();
  }

  send(message: ServerMessage): 'sent' | 'too-long' | 'gone' {
    return writeFrame(this.socket, message, MAX_FRAME_BYTES, this.server.limits.maxUnread);
  }

  /** Sends a last frame, then ends the connection once it is written, or after a second if the peer reads nothing. */
  finish(message: ServerMessage): void {
    this.reader.stop();
    if (this.send(message) !== 'sent') return void this.socket.destroy();
    this.socket.end(() => this.socket.destroy());
    // A peer that never reads would otherwise keep a refused connection (and its slot) open.
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  close(): void {
    this.reader.stop();
    this.socket.destroy();
  }

  private closed(): void {
    clearTimeout(this.helloTimer);
    this.reader.stop();
    this.stopWatching?.();
    // Nobody is left to answer: a change held for the user is withdrawn rather than made for a client that is gone.
    this.current?.abort.abort();
    this.server.weigh(-this.queue.splice(0).reduce((sum, q) => sum + q.weight, 0));
    this.server.forget(this);
  }

  private onLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return this.close();
    }
    if (!this.greeted) return void this.hello(raw);
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success || parsed.data.type === 'hello') return this.close();
    // Heard at once, not queued: the request it names may be the one being served.
    if (parsed.data.type === 'cancel') return this.cancel(parsed.data.id);
    // A client may send calls right behind its hello: they wait in the queue until the hello is decided.
    this.enqueue(parsed.data, line.length);
  }

  private async hello(raw: unknown): Promise<void> {
    this.greeted = true;
    clearTimeout(this.helloTimer);
    // The version is looked at before the schema, so an older or newer client hears why instead of being cut off.
    const shape = raw as { type?: unknown; version?: unknown } | null;
    if (shape?.type === 'hello' && shape.version !== CHANNEL_VERSION) {
      return this.finish({ type: 'refused', code: 'VERSION', message: `This Mnemo speaks channel version ${CHANNEL_VERSION}; update mnemo or the app so both match.` });
    }
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success || parsed.data.type !== 'hello') return this.close();
    const hello = parsed.data;
    if (this.server.stopping) return this.finish({ type: 'locked' });
    const token = this.server.token;
    if (!token || !sameToken(hello.token, token)) return this.finish({ type: 'refused', code: 'BAD_TOKEN', message: 'The channel token is not the one Mnemo wrote; start mnemo again.' });
    // Nothing else is read until the service has decided.
    this.awaitingHello = true;
    this.socket.pause();
    let opened: Awaited<ReturnType<ChannelService['open']>>;
    try {
      opened = this.server.stopping ? { refused: 'LOCKED', message: 'Mnemo is locking its vault.' } : await this.server.service.open(hello);
    } catch {
      opened = { refused: 'LOCKED', message: 'Mnemo could not open this connection; try again.' };
    }
    if (this.socket.destroyed) return;
    if ('refused' in opened) return this.finish({ type: 'refused', code: opened.refused, message: opened.message });
    if (this.server.stopping) return this.finish({ type: 'locked' });
    this.session = opened;
    this.send({ type: 'welcome', version: CHANNEL_VERSION, project: opened.project, ...(opened.readOnly !== undefined ? { readOnly: opened.readOnly } : {}) });
    for (const answer of this.early.splice(0)) answer();
    this.stopWatching = opened.onChange((paths) => void this.send({ type: 'changed', paths }));
    this.awaitingHello = false;
    this.readOn();
    if (this.queue.length) this.running ??= this.drain();
  }

  /** Reads from the peer again unless the hello or the byte budget still holds it back. */
  readOn(): void {
    if (!this.awaitingHello && !this.heldBack && !this.socket.destroyed) this.socket.resume();
  }

  private enqueue(request: Request, weight: number): void {
    if (this.server.stopping) return this.answerUnrun(request, LOCKED_ANSWER, 'LOCKED');
    if (this.queue.length >= this.server.limits.maxQueue) return this.answerUnrun(request, BUSY_ANSWER, 'BUSY');
    this.queue.push({ request, weight, arrived: Date.now() });
    if (this.server.weigh(weight)) {
      this.heldBack = true;
      this.socket.pause();
    }
    if (this.session) this.running ??= this.drain();
  }

  /** The next queued request, its bytes given back to the server's budget. */
  private take(): { request: Request; arrived: number } | undefined {
    const next = this.queue.shift();
    if (next) this.server.weigh(-next.weight);
    return next;
  }

  /** The client no longer waits for request `id`: the one served is told; a queued one is answered without running. */
  private cancel(id: number): void {
    if (this.current?.id === id) return this.current.abort.abort();
    const at = this.queue.findIndex((q) => q.request.id === id);
    if (at < 0) return;
    const [dropped] = this.queue.splice(at, 1);
    this.server.weigh(-dropped!.weight);
    this.answerUnrun(dropped!.request, CANCELLED_ANSWER, 'CANCELLED');
  }

  /** Answers a request without running it. */
  private answerUnrun(request: Request, answer: MemoryCommandAnswer, code: string): void {
    if (!this.session) return void this.early.push(() => this.answerUnrun(request, answer, code));
    if (request.type === 'call') this.send({ type: 'result', id: request.id, result: answer });
    else this.send({ type: 'error', id: request.id, code, message: answer.content.replace(/^Error: /, '') });
  }

  private async drain(): Promise<void> {
    for (let next = this.take(); next && !this.socket.destroyed; next = this.take()) await this.serve(next.request, next.arrived);
    this.running = undefined;
  }

  private async serve(request: Request, arrived: number): Promise<void> {
    const abort = new AbortController();
    this.current = { id: request.id, abort };
    try {
      await this.answer(this.session!, request, { signal: abort.signal, ...(request.type === 'call' && request.within !== undefined ? { deadline: arrived + request.within } : {}) });
    } catch {
      // A service that throws must not end the queue: the request gets an error and the next one runs.
      this.answerUnrun(request, { content: 'Error: The call failed because of an unexpected problem in Mnemo; nothing more is known.', is_error: true }, 'INTERNAL');
    } finally {
      this.current = undefined;
    }
  }

  private async answer(session: ChannelSession, request: Request, opts: CallOptions): Promise<void> {
    if (request.type === 'call') {
      const { readOnly, ...result } = await session.call(request.input, opts);
      const access = readOnly !== undefined ? { readOnly } : {};
      if (this.send({ type: 'result', id: request.id, result, ...access }) === 'too-long') this.send({ type: 'result', id: request.id, result: TOO_LONG_ANSWER, ...access });
    } else {
      try {
        const sent =
          request.type === 'list'
            ? this.send({ type: 'files', id: request.id, files: await session.list() })
            : this.send({ type: 'text', id: request.id, text: await session.read(request.path) });
        if (sent === 'too-long') this.send({ type: 'error', id: request.id, code: 'LIMIT', message: 'The answer is too long to send over the channel.' });
      } catch (e) {
        // Only the service's own errors carry words for the client; anything else may hold a host path.
        if (e instanceof ChannelRequestError) this.send({ type: 'error', id: request.id, code: e.code, message: e.message });
        else this.send({ type: 'error', id: request.id, code: 'INTERNAL', message: 'Mnemo could not answer this request.' });
      }
    }
  }

  /** The vault is locking: queued requests are answered unrun; the one being served finishes. */
  dropQueue(): void {
    for (let r = this.take(); r; r = this.take()) this.answerUnrun(r.request, LOCKED_ANSWER, 'LOCKED');
  }
}
