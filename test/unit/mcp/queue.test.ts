/** The per-server call queue: one at a time, in order, bounded, with refusals at once. */
import { describe, expect, it } from 'vitest';
import { CallQueue, QueueFullError } from '../../../electron/core/mcp/queue';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('the call queue', () => {
  it('runs calls one at a time in the order they came', async () => {
    const q = new CallQueue({ limit: 10 });
    const log: string[] = [];
    let running = 0;
    const job = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      await new Promise((r) => setImmediate(r));
      log.push(`end ${name}`);
      running--;
      return name;
    };
    expect(await Promise.all(['a', 'b', 'c'].map((n) => q.run(job(n))))).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('refuses a call at once when the bound is reached, and takes calls again once there is room', async () => {
    const q = new CallQueue({ limit: 3 });
    const g = gate();
    const held = [q.run(() => g.promise), q.run(async () => 'second'), q.run(async () => 'third')];
    expect(q.size).toBe(3);
    await expect(q.run(async () => 'fourth')).rejects.toBeInstanceOf(QueueFullError);
    await expect(q.run(async () => 'fourth')).rejects.toThrow(/busy: 3 memory calls are already waiting/);
    g.open();
    await Promise.all(held);
    await q.idle();
    expect(await q.run(async () => 'again')).toBe('again');
  });

  it('keeps going after a call fails', async () => {
    const q = new CallQueue();
    await expect(q.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await q.run(async () => 'next')).toBe('next');
    expect(q.size).toBe(0);
  });

  it('drops a waiting call whose request was cancelled, without running it', async () => {
    const q = new CallQueue();
    const g = gate();
    const first = q.run(() => g.promise);
    const abort = new AbortController();
    let ran = false;
    const second = q.run(async () => {
      ran = true;
    }, abort.signal);
    abort.abort();
    g.open();
    await first;
    await expect(second).rejects.toThrow();
    expect(ran).toBe(false);
  });

  it('waits for beforeEach before starting each call (the transport holding calls back)', async () => {
    const g = gate();
    let gated = true;
    const q = new CallQueue({ beforeEach: () => (gated ? g.promise : Promise.resolve()) });
    let ran = false;
    const call = q.run(async () => {
      ran = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(false);
    gated = false;
    g.open();
    await call;
    expect(ran).toBe(true);
  });

  it('reports idle only once nothing runs or waits', async () => {
    const q = new CallQueue();
    await q.idle();
    const g = gate();
    const call = q.run(() => g.promise);
    let idle = false;
    const waiting = q.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    g.open();
    await call;
    await waiting;
    expect(idle).toBe(true);
  });
});
