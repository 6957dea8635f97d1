/**
 * The fake's prompt cache: a deterministic model of how the Messages API bills
 * a request's input, so a test (and `npm run bench:cache`) can see cache reads
 * and writes. Token counts are an estimate (a quarter of each block's JSON
 * length, rounded up), not the API's tokenizer.
 *
 * The request is cut into blocks in the order the API caches them: tools,
 * system, then each message's content blocks. A breakpoint is any block with a
 * `cache_control`, and the last block when the request has a top-level
 * `cache_control` (automatic caching). The longest prefix written before is
 * read; the rest up to the last breakpoint is written; what follows is plain
 * input. Without any breakpoint everything is plain input.
 */
import { createHash } from 'node:crypto';

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

interface Body {
  tools?: unknown[];
  system?: unknown;
  messages?: Array<{ role: string; content: unknown }>;
  cache_control?: unknown;
}

/** The estimate the fake uses for a block: one token per 4 characters of its JSON. */
export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);

/** Each cacheable block of a request, in cache order, with the role it belongs to so equal text in other places differs. */
function blocksOf(body: Body): unknown[] {
  const blocks: unknown[] = [];
  for (const tool of body.tools ?? []) blocks.push(['tool', tool]);
  if (typeof body.system === 'string') blocks.push(['system', { type: 'text', text: body.system }]);
  else if (Array.isArray(body.system)) for (const b of body.system as unknown[]) blocks.push(['system', b]);
  for (const [i, m] of (body.messages ?? []).entries()) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? (m.content as unknown[]) : [];
    // The message index is part of the block so that a block moving to another message is a new prefix.
    for (const b of content) blocks.push([m.role, i, b]);
  }
  return blocks;
}

const hasCacheControl = (block: unknown): boolean => {
  const inner = Array.isArray(block) ? block.at(-1) : undefined;
  return typeof inner === 'object' && inner !== null && 'cache_control' in inner && (inner as { cache_control?: unknown }).cache_control != null;
};

/** Strips cache_control so that marking a block does not change the prefix it belongs to. */
const withoutMarker = (block: unknown): unknown => {
  if (!Array.isArray(block)) return block;
  const inner = block.at(-1) as Record<string, unknown>;
  if (typeof inner !== 'object' || inner === null || !('cache_control' in inner)) return block;
  const { cache_control: _marker, ...rest } = inner;
  return [...block.slice(0, -1), rest];
};

/** One server's cache: prefixes written by earlier requests. Minimum cacheable prefix as the API's (1,024 tokens for Sonnet), or 0 for tests. */
export class FakePromptCache {
  private readonly written = new Set<string>();
  constructor(private readonly minTokens = 0) {}

  /** Bills one request and remembers what it wrote. */
  bill(body: Body): CacheUsage {
    const blocks = blocksOf(body).map(withoutMarker);
    const raw = blocksOf(body);
    const tokens = blocks.map(estimateTokens);
    const total = tokens.reduce((a, b) => a + b, 0);
    const breakpoints = raw.flatMap((b, i) => (hasCacheControl(b) ? [i] : []));
    if (body.cache_control != null && blocks.length && !breakpoints.includes(blocks.length - 1)) breakpoints.push(blocks.length - 1);
    if (!breakpoints.length) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

    // The hash and token count of the prefix that ends with each block.
    const hash = createHash('sha256');
    const prefixes: Array<{ key: string; tokens: number }> = [];
    let sum = 0;
    for (const [i, b] of blocks.entries()) {
      hash.update(JSON.stringify(b));
      hash.update('\u0000');
      sum += tokens[i]!;
      prefixes.push({ key: hash.copy().digest('hex'), tokens: sum });
    }
    const last = Math.max(...breakpoints);
    let read = 0;
    for (let i = last; i >= 0; i--) {
      if (this.written.has(prefixes[i]!.key)) {
        read = prefixes[i]!.tokens;
        break;
      }
    }
    let write = 0;
    for (const bp of breakpoints) {
      const p = prefixes[bp]!;
      if (p.tokens < this.minTokens || this.written.has(p.key)) continue;
      this.written.add(p.key);
      write = Math.max(write, p.tokens - read);
    }
    return { input_tokens: total - read - write, cache_creation_input_tokens: write, cache_read_input_tokens: read };
  }
}
