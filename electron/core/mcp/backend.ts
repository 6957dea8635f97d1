/**
 * Where a call from outside the app (`mnemo mcp`, `mnemo memory`) is served:
 * by the running, unlocked app over the local channel (channel-client.ts), or
 * by this process opening the vault itself for the length of each call
 * (vault-backend.ts). Both answer exactly as Claude's memory tool does.
 */
import type { FileInfo } from './protocol';

export interface MemoryCommandAnswer {
  content: string;
  is_error: boolean;
}

/** What a caller tells a backend about one call beyond its input. */
export interface CallOptions {
  /** Aborted when the MCP client cancels the call or gives up on it: a change still waiting for the user is withdrawn. */
  signal?: AbortSignal;
  /** When (ms since epoch) the client stops waiting: a change waiting for the user is answered "not approved in time" by then. */
  deadline?: number;
}

export interface MemoryBackend {
  /** Which way calls go: shown in logs and tests, never to the MCP client. */
  readonly kind: 'app' | 'vault';
  /** One memory-tool call (unvalidated input), answered as the memory tool answers; never throws for a bad call. */
  call(input: unknown, opts?: CallOptions): Promise<MemoryCommandAnswer>;
  /** The project's memory files, paths as the project sees them (`/memories/…`). */
  list(): Promise<FileInfo[]>;
  /** One memory's text; throws a VaultError (NOT_FOUND, DAMAGED, …) or MemoryPathError. */
  read(path: string): Promise<string>;
  /** Called with the project's paths that changed (by anyone) once this side learns of it; returns an unsubscribe. */
  onChange(listener: (paths: string[]) => void): () => void;
  /**
   * The app only: called with whether this connection may only view, when the app says it (at connection, and
   * with each answer once it changes). Absent: the backend has no say beyond `--read-only`.
   */
  onAccess?(listener: (readOnly: boolean) => void): () => void;
  /** Called once if this backend can serve no more (the app locked or quit): the caller picks another. */
  onGone(listener: () => void): () => void;
  close(): Promise<void>;
}
