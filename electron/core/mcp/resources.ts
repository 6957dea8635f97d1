/**
 * The project's memory files as MCP resources: list, read, subscribe, and
 * `notifications/resources/updated` / `list_changed` when a memory changes.
 *
 * Registered on the SDK's low-level Server rather than through McpServer's
 * resource templates: McpServer reads a URI through `new URL()`, which folds
 * `..` and `%2e%2e` segments away before any handler sees them, and it has no
 * subscriptions. Here the URI is taken exactly as sent and parsed strictly
 * (uri.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { MemoryPathError } from '../memory/paths';
import { VaultError } from '../vault/types';
import type { MemoryBackend } from './backend';
import { QueueFullError, type CallQueue } from './queue';
import { memoryUri, mimeTypeOf, parseMemoryUri } from './uri';

/** The spec's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
/**
 * A JSON-RPC error the SDK sends with this code and message as they are
 * (an McpError would put "MCP error -32602:" in the message, and the client adds it again).
 */
export class ResourceError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ResourceError';
  }
}

/** Subscriptions one client may hold: enough for every memory a person keeps, bounded against a flood. */
export const MAX_SUBSCRIPTIONS = 10_000;

export interface ResourceDeps {
  backend: MemoryBackend & { watch?(on: boolean): void };
  queue: CallQueue;
  log: (line: string) => void;
}

/** Declares the resources capability and serves it; `stop()` ends the change feed. */
export function registerResources(server: Server, deps: ResourceDeps): { stop(): void } {
  const { backend, queue } = deps;
  const subscribed = new Set<string>();
  server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    const files = await queue.run(() => backend.list(), extra.signal).catch(asMcpError);
    return {
      resources: files.map((f) => ({
        uri: memoryUri(f.path),
        name: f.path,
        mimeType: mimeTypeOf(f.path),
        size: f.size,
        ...(Number.isFinite(f.modified) && f.modified > 0 ? { annotations: { lastModified: new Date(f.modified).toISOString() } } : {}),
      })),
    };
  });

  // No templates: every memory is listed, and a URI is only ever one that resources/list gave.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const path = parse(uri);
    const text = await queue.run(() => backend.read(path), extra.signal).catch(asMcpError);
    return { contents: [{ uri, mimeType: mimeTypeOf(path), text }] };
  });

  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const uri = memoryUri(parse(request.params.uri));
    if (!subscribed.has(uri) && subscribed.size >= MAX_SUBSCRIPTIONS) {
      throw new ResourceError(ErrorCode.InvalidParams, `At most ${MAX_SUBSCRIPTIONS} memories can be subscribed to at once; unsubscribe from some first.`);
    }
    subscribed.add(uri);
    backend.watch?.(true);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(memoryUri(parse(request.params.uri)));
    if (subscribed.size === 0) backend.watch?.(false);
    return {};
  });

  const off = backend.onChange((paths) => {
    // Sizes and times are part of the listing, so any change changes it.
    void server.sendResourceListChanged().catch(() => undefined);
    for (const p of paths) {
      const uri = memoryUri(p);
      if (subscribed.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
  });

  return {
    stop() {
      off();
      subscribed.clear();
      backend.watch?.(false);
    },
  };
}

function parse(uri: string): string {
  try {
    return parseMemoryUri(uri);
  } catch (e) {
    throw new ResourceError(ErrorCode.InvalidParams, e instanceof Error ? e.message : 'That is not a Mnemo memory resource.');
  }
}

/** A failed list or read as a JSON-RPC error whose message names no host path. */
function asMcpError(e: unknown): never {
  if (e instanceof ResourceError) throw e;
  if (e instanceof QueueFullError) throw new ResourceError(ErrorCode.InternalError, e.message);
  if (e instanceof VaultError && (e.code === 'NOT_FOUND' || e.code === 'NOT_A_FILE')) {
    throw new ResourceError(RESOURCE_NOT_FOUND, e.code === 'NOT_FOUND' ? 'That memory does not exist (it may have been deleted or renamed); list the memories again.' : 'That is a folder, not a memory file.');
  }
  if (e instanceof VaultError || e instanceof MemoryPathError || (e instanceof Error && e.name === 'VaultUnavailable')) {
    throw new ResourceError(ErrorCode.InternalError, e.message);
  }
  throw new ResourceError(ErrorCode.InternalError, 'Mnemo could not read the memory; try again.');
}
