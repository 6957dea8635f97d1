/**
 * A race of every kind of holder on one vault at once: the app (held while
 * unlocked, locking and unlocking in a loop and writing), two per-call writers
 * with small journal limits (checkpoints, compaction, segment collection under
 * each other's cached readers), a passphrase change and then a key rotation by
 * a further per-call holder while they write. Every acknowledged write must be
 * there at the end, and the vault must verify.
 */
import fs from 'node:fs/promises';
import { expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import type { OpenOptions } from '../../../electron/core/vault/types';
import { DEEP, FIXED_SEED, prng, randomSeed } from '../../deep';
import { PASS } from './helpers';
import { madeVault } from './lock-children';

import { cleanup, Expected, ok, Proc, SHARED, WAIT, type Line } from './percall-rig';

const NEW_PASS = 'the passphrase after the change, mid-race';

it(`the app locking and unlocking, two per-call writers, a passphrase change and a key rotation, all at once: nothing acknowledged is lost (${DEEP ? 40 : 5} app rounds)`, async () => {
  const { dir, state } = await madeVault('mnemo-race-', cleanup);
  const expected = new Expected();
  const seed = randomSeed('percall race');
  const writers = ['a', 'b'].map(
    (who, i) => ({ who, p: new Proc(dir, state, { ...WAIT, journalLimit: 5 + 4 * i }, (l) => expected.see(l)) }),
  );
  const app = new Proc(dir, state, { releaseWhenLocked: true, lockWaitMs: 120_000, journalLimit: 7 });
  for (const x of [...writers.map((w) => w.p), app]) expect(await x.next()).toEqual({ ready: true });
  for (const w of writers) ok(await w.p.ask({ op: 'unlock', pass: PASS }));
  for (const [i, w] of writers.entries()) w.p.send({ op: 'writer', who: w.who, run: 0, n: -1, seed: i ? seed : FIXED_SEED, shared: SHARED });
  const me = await Vault.open(dir, { stateDir: state, ...WAIT });
  cleanup(() => me.close());
  await me.unlock(PASS);
  const rounds = DEEP ? 40 : 5;
  const appFiles = new Map<string, string>();
  let pass = PASS;
  for (let r = 0; r < rounds; r++) {
    ok(await app.ask({ op: 'unlock', pass }));
    for (let k = 0; k < 3; k++) {
      const p = `/memories/app/r${r % 4}-${k}.md`;
      const text = `app round ${r} file ${k}\n` + 'y'.repeat(3000 * (k + 1));
      ok(await app.ask({ op: 'write', p, text }));
      appFiles.set(p, text);
    }
    ok(await app.ask({ op: 'lock' }));
    if (r === Math.floor(rounds / 3)) {
      await me.changePassphrase(PASS, NEW_PASS);
      pass = NEW_PASS;
    }
  }
  // Keys rotated while the writers write: each one's next call ends its session (LOCKED), which ends its loop.
  await me.rotateKeys(NEW_PASS);
  for (const w of writers) {
    const end = await w.p.next();
    expect(end.error ?? 'done', end.message).toBe('LOCKED');
  }
  ok(await app.ask({ op: 'unlock', pass: NEW_PASS }));
  for (const [p, text] of appFiles) expect((await app.ask({ op: 'read', p })).text, p).toBe(text);
  ok(await app.ask({ op: 'close' }));
  for (const w of writers) ok(await w.p.ask({ op: 'close' }));
  await me.close();
  console.log(`percall race: ${expected.acks} acknowledged writer changes, ${rounds * 3} app writes`);
  expect(expected.acks).toBeGreaterThan(rounds);
  const v = await Vault.open(dir, { stateDir: state });
  try {
    await v.unlock(NEW_PASS);
    await expected.check(v, SHARED);
    for (const [p, text] of appFiles) expect(await v.memory.readFile(p)).toBe(text);
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
    expect((await fs.readdir(dir)).filter((n) => n.includes('tmp'))).toEqual([]);
  } finally {
    await v.close();
  }
}, DEEP ? 900_000 : 300_000);

it(`the app and per-call writers killed with SIGKILL at ${DEEP ? 100 : 8} random moments while a per-call writer keeps writing lose nothing acknowledged`, async () => {
  const { dir, state } = await madeVault('mnemo-race-', cleanup);
  const expected = new Expected();
  const steady = new Proc(dir, state, { ...WAIT, journalLimit: 4 }, (l) => expected.see(l));
  expect(await steady.next()).toEqual({ ready: true });
  ok(await steady.ask({ op: 'unlock', pass: PASS }));
  steady.send({ op: 'writer', who: 'steady', run: 0, n: -1, seed: FIXED_SEED, shared: SHARED });
  const seed = randomSeed('percall race: SIGKILL');
  const random = prng(seed);
  const kills = DEEP ? 100 : 8;
  for (let run = 1; run <= kills; run++) {
    // Every other victim is the app: it holds the vault from its unlock until it is killed.
    const opts: OpenOptions = run % 2 ? { ...WAIT, journalLimit: 3 } : { releaseWhenLocked: true, lockWaitMs: 120_000, journalLimit: 3 };
    let failure: Line | undefined;
    let timer: NodeJS.Timeout | undefined;
    const victim = new Proc(dir, state, opts, (l) => {
      expected.see(l);
      if (l.error) {
        failure = l;
        victim.proc.kill('SIGKILL');
      }
      if (l.ack) timer ??= setTimeout(() => victim.proc.kill('SIGKILL'), random() * 120);
    });
    victim.send({ op: 'unlock', pass: PASS });
    victim.send({ op: 'writer', who: `victim${run % 2}`, run, n: -1, seed: seed + run, shared: SHARED });
    const end = await victim.exited;
    clearTimeout(timer);
    expect(failure).toBeUndefined();
    expect(end.signal, victim.stderr).toBe('SIGKILL');
  }
  steady.send({ op: 'stop' });
  ok(await steady.next());
  ok(await steady.ask({ op: 'close' }));
  const v = await Vault.open(dir, { stateDir: state });
  try {
    await v.unlock(PASS);
    await expected.check(v, SHARED);
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
  } finally {
    await v.close();
  }
}, DEEP ? 900_000 : 300_000);
