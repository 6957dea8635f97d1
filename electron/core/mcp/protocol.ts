/**
 * The local channel between a running Mnemo app and the processes that use its
 * memory from outside (`mnemo mcp`, `mnemo memory`): newline-delimited JSON
 * over a Unix socket (a named pipe on Windows) that only this user can open,
 * authenticated by a random token the app writes to a file only this user can
 * read. While the app is unlocked it is the one holder of the vault: calls that
 * come this way appear live in the window, wait for the user in approval mode
 * and reach the review inbox.
 *
 * Both ends validate every frame with these schemas; a frame that does not
 * parse, or is longer than MAX_FRAME_BYTES, ends the connection.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';

/** 2: a call may say how long its client waits (`within`), and a client may `cancel` a request. */
export const CHANNEL_VERSION = 2;
/** A memory is at most 1 MiB; a frame carries one, JSON-escaped, with room to spare. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** The longest MCP client name kept (as provenance and in the call log). */
export const MAX_CLIENT_NAME = 64;

export interface ChannelFiles {
  /** Where the app listens: a socket path, or a `\\.\pipe\…` name on Windows. */
  socket: string;
  /** The file holding the token (mode 0600), written by the app while it serves, removed when it stops. */
  token: string;
}

/**
 * The channel's files for a vault in this device's state folder. Unix socket
 * paths are limited to about 100 bytes, so the socket is named by a short hash
 * of the vault id; a state folder too deep for that is a clear error at listen.
 */
export function channelFiles(stateDir: string, vaultId: string, platform: NodeJS.Platform = process.platform): ChannelFiles {
  const short = createHash('sha256').update(`${path.resolve(stateDir)}\0${vaultId}`).digest('hex').slice(0, 16);
  const socket = platform === 'win32' ? `\\\\.\\pipe\\mnemo-${short}` : path.join(stateDir, `${short}.sock`);
  return { socket, token: path.join(stateDir, `${vaultId}.channel`) };
}

/** A client name as kept: printable, trimmed, at most MAX_CLIENT_NAME characters; "an MCP client" when empty. */
export function cleanClientName(name: unknown): string {
  const text = typeof name === 'string' ? name.normalize('NFC').replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, '').trim() : '';
  const cut = [...text].slice(0, MAX_CLIENT_NAME).join('');
  return cut || 'an MCP client';
}

const Id = z.number().int().nonnegative();
export const MemoryCommandResult = z.object({ content: z.string(), is_error: z.boolean() });

export const ClientMessage = z.discriminatedUnion('type', [
  /** First frame, always: who is calling and for which project. */
  z.object({
    type: z.literal('hello'),
    version: z.literal(CHANNEL_VERSION),
    token: z.string().regex(/^[0-9a-f]{64}$/),
    /** `mcp`: an MCP client named `client`; `cli`: `mnemo memory`. */
    via: z.enum(['mcp', 'cli']),
    client: z.string().max(1024),
    /** A project by name; absent (and no `projectId`): the first project. */
    project: z.string().max(1024).optional(),
    /** A project by id (`mnemo mcp --project-id`), instead of by name. */
    projectId: z.string().max(64).optional(),
    readOnly: z.boolean(),
  }),
  /**
   * One memory-tool call; answered with `result`. `within`: how many ms its client still waits for the answer
   * (a change held for the user's approval is answered "not approved in time" by then, before the client gives up).
   */
  z.object({ type: z.literal('call'), id: Id, input: z.unknown(), within: z.number().int().min(0).max(24 * 60 * 60_000).optional() }),
  /**
   * The client no longer waits for request `id` (its MCP client cancelled it, or gave up): one still queued is
   * answered without running, a change waiting for the user is withdrawn. Not answered itself.
   */
  z.object({ type: z.literal('cancel'), id: Id }),
  /** The project's memory files (for MCP resources); answered with `files`. */
  z.object({ type: z.literal('list'), id: Id }),
  /** One memory's text (for MCP resources); answered with `text` or `error`. */
  z.object({ type: z.literal('read'), id: Id, path: z.string().max(4096) }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

const FileInfo = z.object({ path: z.string(), size: z.number(), modified: z.number() });
export type FileInfo = z.infer<typeof FileInfo>;

export const ServerMessage = z.discriminatedUnion('type', [
  /** `readOnly`: the connection may only view (the access level, `--read-only`, or the user's rule for this app). */
  z.object({ type: z.literal('welcome'), version: z.literal(CHANNEL_VERSION), project: z.string(), readOnly: z.boolean().optional() }),
  /** The hello was refused; the app closes the connection after this frame. */
  z.object({ type: z.literal('refused'), code: z.enum(['BAD_TOKEN', 'LOCKED', 'MCP_OFF', 'NO_PROJECT', 'VERSION', 'BUSY']), message: z.string() }),
  /** A call's answer, and whether the connection may only view as of this call (the user may change it meanwhile). */
  z.object({ type: z.literal('result'), id: Id, result: MemoryCommandResult, readOnly: z.boolean().optional() }),
  z.object({ type: z.literal('files'), id: Id, files: z.array(FileInfo) }),
  z.object({ type: z.literal('text'), id: Id, text: z.string() }),
  z.object({ type: z.literal('error'), id: Id, code: z.string(), message: z.string() }),
  /** Memories of the connection's project changed (paths as the project sees them). */
  z.object({ type: z.literal('changed'), paths: z.array(z.string()) }),
  /** The vault was locked: the connection ends after this frame; the client opens the vault itself if it can. */
  z.object({ type: z.literal('locked') }),
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
