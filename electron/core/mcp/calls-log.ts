/**
 * The log of the last calls other apps made over the channel: client,
 * command, path, time and whether it worked, never what was read or written.
 * Kept encrypted in the vault's internal store (`mcp/calls`), where the memory
 * tool cannot reach it. Writing it on every call would add a durable write to
 * each view, so it is written at most once per `flushMs` and when the channel
 * stops (before the keys go): a crash loses at most the last moment's entries.
 */
import { ChannelCall } from '../../shared/channel';
import type { InternalStore } from '../vault/types';

export type { ChannelCall } from '../../shared/channel';

export const CALL_LOG_KEY = 'mcp/calls';
export const CALL_LOG_SIZE = 100;

/** The stored log: each entry that still validates, newest last; anything else is dropped. */
export async function readCallLog(store: Pick<InternalStore, 'getJSON'>): Promise<ChannelCall[]> {
  const stored = await store.getJSON<unknown>(CALL_LOG_KEY);
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((e) => {
    const parsed = ChannelCall.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  }).slice(-CALL_LOG_SIZE);
}

export class CallLog {
  private entries: ChannelCall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<InternalStore, 'getJSON' | 'putJSON'>,
    private readonly opts: { flushMs?: number; onChange?(entries: ChannelCall[]): void } = {},
  ) {}

  /** Reads the stored log, keeping anything added meanwhile after it. */
  async load(): Promise<void> {
    const stored = await readCallLog(this.store);
    this.entries = [...stored, ...this.entries].slice(-CALL_LOG_SIZE);
  }

  /** Notes a call (cut to the entry's bounds) and schedules a write. */
  add(entry: ChannelCall): void {
    const cut = (p: string | undefined) => (p === undefined ? undefined : p.length > 1024 ? `${p.slice(0, 1023)}…` : p);
    const path = cut(entry.path);
    const newPath = cut(entry.newPath);
    const clean: ChannelCall = { ...entry, ...(path !== undefined ? { path } : {}), ...(newPath !== undefined ? { newPath } : {}), command: entry.command.slice(0, 32), project: entry.project.slice(0, 200) };
    this.entries.push(clean);
    if (this.entries.length > CALL_LOG_SIZE) this.entries.splice(0, this.entries.length - CALL_LOG_SIZE);
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, this.opts.flushMs ?? 1000);
    this.timer.unref();
    this.opts.onChange?.(this.list());
  }

  /** The entries, newest first. */
  list(): ChannelCall[] {
    return [...this.entries].reverse();
  }

  /** Writes the log now if anything was added since the last write; durable once it resolves (rejects if the vault could not take it). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const run = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await this.store.putJSON(CALL_LOG_KEY, this.entries);
      } catch (e) {
        this.dirty = true;
        throw e;
      }
    });
    this.writing = run.catch(() => undefined);
    return run;
  }
}
