/**
 * The client's end of the local channel: `mnemo mcp` and `mnemo memory` use
 * it to hand their calls to the running, unlocked app (which then stays the
 * one holder of the vault). `connectApp` answers undefined when there is no
 * app to talk to (no token file, nobody answering) or the app refuses, so the
 * caller can open the vault itself; `onRefused` says why the app refused.
 */
import net from 'node:net';
import { MemoryPathError } from '../memory/paths';
import { VaultError, type VaultErrorCode } from '../vault/types';
import type { CallOptions, MemoryBackend, MemoryCommandAnswer } from './backend';
import { APPROVAL_TIMEOUT_MS } from './channel-approvals';
import { readToken } from './channel-files';
import { FrameReader, writeFrame, writeLine } from './channel-frames';
import type { RefusalCode } from './channel-connection';
import { CHANNEL_VERSION, channelFiles, MAX_FRAME_BYTES, ServerMessage, type FileInfo } from './protocol';

export interface ConnectOptions {
  stateDir: string;
  vaultId: string;
  via: 'mcp' | 'cli';
  /** The MCP client's name (the app cleans it); for `cli`, anything. */
  client: string;
  /** A project by name; absent (and no `projectId`): the first project. */
  project?: string;
  /** A project by id, instead of by name. */
  projectId?: string;
  readOnly: boolean;
  /** Told why the app refused the connection (MCP access off, no such project, locked…), to say so to the user. */
  onRefused?(refusal: { code: RefusalCode; message: string }): void;
  platform?: NodeJS.Platform;
  /** How long connecting and the hello may take before the app counts as absent (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Told when a token was there but no app answered in time (a hung or very busy app), to say so to the user. */
  onSlow?(): void;
  /** How long one request may wait for its answer: longer than a change may wait for the user's approval. */
  requestTimeoutMs?: number;
}

/**
 * How long connecting and the hello may take. A local socket answers in
 * milliseconds; this only runs out when something accepts and then hangs, and
 * it is long so that an app busy on a loaded machine is not taken for absent
 * (a stale socket left by a killed app refuses at once instead).
 */
export const CONNECT_TIMEOUT_MS = 15_000;

/** How long a request waits for its answer by default: longer than a change waits for the user, so the app's own timeout answers first. */
export const DEFAULT_REQUEST_TIMEOUT_MS = APPROVAL_TIMEOUT_MS + 30_000;

/** Why no backend came out of connecting. */
export type ChannelOutcome = { backend: MemoryBackend } | { refused: { code: RefusalCode; message: string } } | { absent: 'no-token' | 'no-answer' | 'slow' | 'locked' };

/** The running app as a MemoryBackend, or undefined (see the module comment). */
export async function connectApp(opts: ConnectOptions): Promise<MemoryBackend | undefined> {
  const outcome = await openChannel(opts);
  if ('refused' in outcome) opts.onRefused?.(outcome.refused);
  if ('absent' in outcome && outcome.absent === 'slow') opts.onSlow?.();
  return 'backend' in outcome ? outcome.backend : undefined;
}

/** Connects and says hello; tells apart an app that is absent from one that refused. */
export async function openChannel(opts: ConnectOptions): Promise<ChannelOutcome> {
  const platform = opts.platform ?? process.platform;
  const files = channelFiles(opts.stateDir, opts.vaultId, platform);
  // A name the app's schema would refuse is no project of its own (names are at most 100 characters).
  if (opts.project !== undefined && opts.project.length > MAX_NAME) return { refused: { code: 'NO_PROJECT', message: 'There is no project with so long a name in Mnemo.' } };
  const token = await readToken(files.token, platform);
  if (!token) return { absent: 'no-token' };
  const socket = net.connect(files.socket);
  const backend = new AppBackend(socket, opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  const outcome = await backend.greet(
    { type: 'hello', version: CHANNEL_VERSION, token, via: opts.via, client: opts.client.slice(0, MAX_NAME), ...(opts.project !== undefined ? { project: opts.project } : {}), ...(opts.projectId !== undefined ? { projectId: opts.projectId } : {}), readOnly: opts.readOnly },
    opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
  );
  if (!('backend' in outcome)) socket.destroy();
  return outcome;
}

interface Waiting {
  settle(message: ServerMessage | undefined): void;
}

const GONE_ANSWER: MemoryCommandAnswer = { content: 'Error: The connection to the Mnemo app closed before it answered; the change may or may not have been made. View the memory to check.', is_error: true };
const LATE_ANSWER: MemoryCommandAnswer = { content: 'Error: The Mnemo app did not answer in time; the change may or may not have been made. View the memory to check.', is_error: true };
/** Bytes of requests the app may leave unread (it reads on while a call runs, so this is only reached if it hangs). */
const MAX_UNSENT = 4 * MAX_FRAME_BYTES;
/** The longest client name and project name and memory path the app's hello and read accept (protocol.ts). */
const MAX_NAME = 1024;
const MAX_READ_PATH = 4096;
const VAULT_CODES = new Set<string>(['NOT_FOUND', 'EXISTS', 'NOT_A_FILE', 'NOT_A_DIRECTORY', 'CONFLICT', 'LOCKED', 'DAMAGED', 'ROLLED_BACK', 'LIMIT', 'INVALID', 'DISK_FULL', 'IO']);

class AppBackend implements MemoryBackend {
  readonly kind = 'app' as const;
  private readonly reader: FrameReader;
  private readonly waiting = new Map<number, Waiting>();
  private readonly changeListeners = new Set<(paths: string[]) => void>();
  private readonly goneListeners = new Set<() => void>();
  private readonly accessListeners = new Set<(readOnly: boolean) => void>();
  /** Whether the app lets this connection only view, as it last said. */
  private readOnly = false;
  private nextId = 1;
  private gone = false;
  private closing = false;
  private first: ((m: ServerMessage | undefined) => void) | undefined;

  constructor(
    private readonly socket: net.Socket,
    private readonly timeoutMs: number,
  ) {
    this.reader = new FrameReader(MAX_FRAME_BYTES, (line) => this.onLine(line), () => socket.destroy());
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.ended());
    // Idle, the connection does not keep the process alive; a request in flight does.
    socket.unref();
  }

  async greet(hello: Record<string, unknown>, timeoutMs: number): Promise<ChannelOutcome> {
    const first = new Promise<ServerMessage | undefined>((resolve) => (this.first = resolve));
    let slow = false;
    const timer = setTimeout(() => ((slow = true), this.socket.destroy()), timeoutMs);
    this.socket.ref();
    try {
      await new Promise<void>((resolve, reject) => {
        this.socket.once('connect', resolve);
        this.socket.once('close', () => reject(new Error('closed')));
      });
      writeFrame(this.socket, hello, MAX_FRAME_BYTES, MAX_UNSENT);
      const answer = await first;
      if (answer?.type === 'welcome') {
        this.readOnly = answer.readOnly === true;
        return { backend: this };
      }
      if (answer?.type === 'refused') return { refused: { code: answer.code, message: answer.message } };
      return { absent: answer?.type === 'locked' ? 'locked' : slow ? 'slow' : 'no-answer' };
    } catch {
      return { absent: slow ? 'slow' : 'no-answer' };
    } finally {
      clearTimeout(timer);
      this.first = undefined;
      if (!this.gone) this.socket.unref();
    }
  }

  private onLine(line: string): void {
    let message: ServerMessage;
    try {
      const parsed = ServerMessage.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error('bad frame');
      message = parsed.data;
    } catch {
      // A peer that speaks something else is not our app.
      return void this.socket.destroy();
    }
    if (this.first) return this.first(message);
    if (message.type === 'changed') {
      for (const l of this.changeListeners) l(message.paths);
    } else if (message.type === 'locked') {
      this.socket.destroy();
    } else if ('id' in message) {
      if (message.type === 'result' && message.readOnly !== undefined && message.readOnly !== this.readOnly) {
        this.readOnly = message.readOnly;
        for (const l of this.accessListeners) l(message.readOnly);
      }
      const w = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      w?.settle(message);
    }
  }

  private ended(): void {
    this.reader.stop();
    this.first?.(undefined);
    if (this.gone) return;
    this.gone = true;
    for (const w of [...this.waiting.values()]) w.settle(undefined);
    this.waiting.clear();
    if (this.closing) return;
    for (const l of this.goneListeners) l();
  }

  /**
   * Sends a request and waits for its answer: undefined if the connection ended, `late` if the time ran out.
   * When `signal` aborts, the app is told (`cancel`), and the request waits on for the app's answer, which
   * comes at once for a call still queued or held for the user.
   */
  private request(body: Record<string, unknown>, signal?: AbortSignal): Promise<ServerMessage | 'late' | 'too-long' | undefined> {
    if (this.gone) return Promise.resolve(undefined);
    const id = this.nextId++;
    let frame: string;
    try {
      frame = JSON.stringify({ ...body, id });
    } catch {
      return Promise.resolve('too-long');
    }
    if (Buffer.byteLength(frame, 'utf8') > MAX_FRAME_BYTES) return Promise.resolve('too-long');
    return new Promise((resolve) => {
      const cancel = () => void writeFrame(this.socket, { type: 'cancel', id }, MAX_FRAME_BYTES, MAX_UNSENT);
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        // Given up on: the app is told, so a change still queued or held for the user is dropped rather than
        // made after its client was answered with an error.
        if (!this.gone) cancel();
        settle('late');
      }, this.timeoutMs);
      const settle = (m: ServerMessage | 'late' | undefined) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancel);
        if (this.waiting.size === 0 && !this.gone) this.socket.unref();
        resolve(m);
      };
      this.waiting.set(id, { settle });
      this.socket.ref();
      if (writeLine(this.socket, frame, MAX_FRAME_BYTES, MAX_UNSENT) !== 'sent') {
        this.waiting.delete(id);
        return settle(undefined);
      }
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  async call(input: unknown, opts: CallOptions = {}): Promise<MemoryCommandAnswer> {
    // Sent as the time left, counted by the app from when the frame arrives.
    const within = opts.deadline === undefined ? undefined : Math.max(0, Math.floor(opts.deadline - Date.now()));
    const answer = await this.request({ type: 'call', input, ...(within !== undefined ? { within } : {}) }, opts.signal);
    if (answer === 'too-long') return { content: `Error: The input is too large to send to Mnemo (over ${MAX_FRAME_BYTES / 1024 / 1024} MB); a memory file holds at most 1 MB.`, is_error: true };
    if (answer === 'late') return LATE_ANSWER;
    if (answer?.type === 'result') return { content: answer.result.content, is_error: answer.result.is_error };
    return GONE_ANSWER;
  }

  async list(): Promise<FileInfo[]> {
    const answer = await this.request({ type: 'list' });
    if (answer !== undefined && answer !== 'late' && answer !== 'too-long' && answer.type === 'files') return answer.files;
    throw failure(answer);
  }

  async read(path: string): Promise<string> {
    if (path.length > MAX_READ_PATH) throw new MemoryPathError('The path is too long; memory paths may have at most 1024 bytes.');
    const answer = await this.request({ type: 'read', path });
    if (answer !== undefined && answer !== 'late' && answer !== 'too-long' && answer.type === 'text') return answer.text;
    throw failure(answer);
  }

  onChange(listener: (paths: string[]) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onGone(listener: () => void): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  /** Told at once what the app last said, then each time it changes. */
  onAccess(listener: (readOnly: boolean) => void): () => void {
    this.accessListeners.add(listener);
    listener(this.readOnly);
    return () => this.accessListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.gone) return;
    await new Promise<void>((resolve) => {
      // Held while closing, so a caller awaiting close (a CLI at its end) is not cut off by an empty event loop.
      this.socket.ref();
      // A peer that never closes its side is not waited for.
      const timer = setTimeout(() => this.socket.destroy(), 1000);
      this.socket.once('close', () => (clearTimeout(timer), resolve()));
      this.socket.end();
    });
  }
}

/** The error `list` or `read` throws for an answer that is not the one asked for. */
function failure(answer: ServerMessage | 'late' | 'too-long' | undefined): Error {
  if (answer === undefined) return new VaultError('LOCKED', 'The connection to the Mnemo app closed before it answered.');
  if (answer === 'late') return new VaultError('IO', 'The Mnemo app did not answer in time.');
  if (answer === 'too-long') return new VaultError('INVALID', 'The request is too large to send to the Mnemo app.');
  if (answer.type !== 'error') return new VaultError('IO', 'The Mnemo app answered something unexpected.');
  if (answer.code === 'BAD_PATH') return new MemoryPathError(answer.message);
  // Refusals of the connection's standing (access turned off, project deleted) read as the app being unavailable.
  return new VaultError(VAULT_CODES.has(answer.code) ? (answer.code as VaultErrorCode) : 'LOCKED', answer.message);
}
