/**
 * Several real processes sharing one vault, each holding it per call
 * (OpenOptions.lockPerCall): concurrent writers through checkpoints and
 * compaction, writers killed with SIGKILL at random moments, the app's vault
 * (releaseWhenLocked) between them, and keys changed under a holder.
 */
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Vault } from '../../../electron/core/vault/vault';
import { DEEP, FIXED_SEED, prng, randomSeed } from '../../deep';
import { PASS } from './helpers';
import { madeVault } from './lock-children';

import { cleanup, Expected, ok, Proc, SHARED, WAIT, type Line } from './percall-rig';

/** Opens the vault as a session holder, checks `expected` and verifies, and closes it. */
async function checkVault(dir: string, state: string, expected: Expected): Promise<void> {
  const v = await Vault.open(dir, { stateDir: state });
  try {
    await v.unlock(PASS);
    await expected.check(v, SHARED);
    expect(await v.verify()).toEqual({ ok: true, problems: [] });
    // Temp files of killed writers (a manifest, a lock record) were cleared by the first full load.
    expect((await fs.readdir(dir)).filter((n) => n.includes('tmp'))).toEqual([]);
  } finally {
    await v.close();
  }
}

describe('processes sharing a vault per call', () => {
  it('three writers at once, through checkpoints and compaction: every acknowledged write is there, no line lost', async () => {
    const { dir, state } = await madeVault('mnemo-percall-proc-', cleanup);
    // One kept version: rewritten files leave segments mostly garbage, which checkpoints compact.
    const setup = await Vault.open(dir, { stateDir: state });
    await setup.unlock(PASS);
    await setup.setHistoryDepth(1);
    await setup.close();
    const expected = new Expected();
    const n = DEEP ? 300 : 24;
    const acks: string[] = [];
    const writers = ['a', 'b', 'c'].map((who) => ({
      who,
      p: new Proc(dir, state, { ...WAIT, journalLimit: 10 }, (l) => {
        expected.see(l);
        if (l.ack) acks.push(who);
      }),
    }));
    for (const w of writers) expect(await w.p.next()).toEqual({ ready: true });
    for (const w of writers) ok(await w.p.ask({ op: 'unlock', pass: PASS }));
    const seed = randomSeed('percall: three writers');
    for (const [i, w] of writers.entries()) w.p.send({ op: 'writer', who: w.who, run: 0, n, seed: i ? seed + i : FIXED_SEED, shared: SHARED });
    for (const w of writers) ok(await w.p.next());
    for (const w of writers) ok(await w.p.ask({ op: 'close' }));
    expect(expected.acks).toBe(3 * n);
    // They took turns: a writer calling back to back does not keep the others waiting until it is done.
    // (Measured here: about 108 turns in the sampled 120 writes; about 20 when every process tried again at once, whoever waited.)
    const turns = acks.filter((who, i) => i > 0 && who !== acks[i - 1]).length;
    expect(turns).toBeGreaterThanOrEqual(n);
    await checkVault(dir, state, expected);
  }, 300_000);

  it(`a writer killed with SIGKILL at ${DEEP ? 200 : 12} random moments while another keeps writing loses nothing acknowledged`, async () => {
    const { dir, state } = await madeVault('mnemo-percall-proc-', cleanup);
    const expected = new Expected();
    const steady = new Proc(dir, state, { ...WAIT, journalLimit: 8 }, (l) => expected.see(l));
    expect(await steady.next()).toEqual({ ready: true });
    ok(await steady.ask({ op: 'unlock', pass: PASS }));
    steady.send({ op: 'writer', who: 'steady', run: 0, n: -1, seed: FIXED_SEED, shared: SHARED });
    const seed = randomSeed('percall: SIGKILL');
    const random = prng(seed);
    const kills = DEEP ? 200 : 12;
    let reachedWriting = 0;
    for (let run = 1; run <= kills; run++) {
      let acked = false;
      let failure: Line | undefined;
      let timer: NodeJS.Timeout | undefined;
      const victim = new Proc(dir, state, { ...WAIT, journalLimit: 6 }, (l) => {
        expected.see(l);
        if (l.error) {
          failure = l;
          victim.proc.kill('SIGKILL');
        }
        // Mostly while writing; sometimes while starting or unlocking (the load under the lock).
        if (l.ack && !acked) {
          acked = true;
          reachedWriting++;
          timer ??= setTimeout(() => victim.proc.kill('SIGKILL'), random() * 150);
        }
      });
      // Every fifth run at any moment (not drawn at random: with a sample of 12, a draw of 6 early kills failed the check below in CI).
      if (run % 5 === 0) timer = setTimeout(() => victim.proc.kill('SIGKILL'), random() * 400);
      victim.send({ op: 'unlock', pass: PASS });
      victim.send({ op: 'writer', who: 'victim', run, n: -1, seed: seed + run, shared: SHARED });
      const end = await victim.exited;
      clearTimeout(timer);
      expect(failure).toBeUndefined();
      expect(end.signal, victim.stderr).toBe('SIGKILL');
    }
    steady.send({ op: 'stop' });
    ok(await steady.next());
    ok(await steady.ask({ op: 'close' }));
    expect(reachedWriting).toBeGreaterThan(kills / 2);
    await checkVault(dir, state, expected);
  }, DEEP ? 900_000 : 300_000);

  it('the app: a per-call writer gets in while it is locked, is refused while it is unlocked, gets in again once it locks', async () => {
    const { dir, state } = await madeVault('mnemo-percall-proc-', cleanup);
    const app = await Vault.open(dir, { stateDir: state, releaseWhenLocked: true });
    cleanup(() => app.close());
    const cli = new Proc(dir, state, { lockPerCall: true, lockWaitMs: 300 });
    expect(await cli.next()).toEqual({ ready: true });
    ok(await cli.ask({ op: 'unlock', pass: PASS }));
    ok(await cli.ask({ op: 'write', p: '/memories/while-locked.md', text: 'written while the app was locked' }));
    await app.unlock(PASS);
    expect(await app.memory.readFile('/memories/while-locked.md')).toBe('written while the app was locked');
    expect(await cli.ask({ op: 'write', p: '/memories/refused.md', text: 'no' })).toMatchObject({ error: 'IN_USE', message: expect.stringMatching(/open in another Mnemo window/) });
    await app.memory.writeFile('/memories/from-app.md', 'the app wrote this', { mode: 'upsert', source: 'user' });
    app.lock();
    ok(await cli.ask({ op: 'write', p: '/memories/after.md', text: 'after the app locked' }));
    expect(await cli.ask({ op: 'read', p: '/memories/from-app.md' })).toMatchObject({ text: 'the app wrote this' });
    await app.unlock(PASS);
    expect(await app.memory.readFile('/memories/after.md')).toBe('after the app locked');
    expect(app.memory.stat('/memories/refused.md')).toBeUndefined();
  }, 60_000);

  it("keys rotated by another process end a holder's session at its next call; a passphrase change there does not", async () => {
    const { dir, state } = await madeVault('mnemo-percall-proc-', cleanup);
    const newPass = 'a brand new passphrase for this vault';
    const cli = new Proc(dir, state, { lockPerCall: true });
    expect(await cli.next()).toEqual({ ready: true });
    ok(await cli.ask({ op: 'unlock', pass: PASS }));
    const me = await Vault.open(dir, { stateDir: state, lockPerCall: true });
    cleanup(() => me.close());
    await me.unlock(PASS);
    await me.changePassphrase(PASS, newPass);
    ok(await cli.ask({ op: 'write', p: '/memories/after-passwd.md', text: 'carried on' }));
    await me.rotateKeys(newPass);
    expect(await cli.ask({ op: 'write', p: '/memories/after-rotate.md', text: 'x' })).toEqual({
      error: 'LOCKED',
      message: "The vault's keys were changed in another window or command, or on another computer; unlock again.",
    });
    expect(await cli.ask({ op: 'unlock', pass: PASS })).toMatchObject({ error: 'BAD_PASSPHRASE' });
    ok(await cli.ask({ op: 'unlock', pass: newPass }));
    ok(await cli.ask({ op: 'write', p: '/memories/after-rotate.md', text: 'with the new keys' }));
    expect(await me.memory.readFile('/memories/after-passwd.md')).toBe('carried on');
    expect(await me.memory.readFile('/memories/after-rotate.md')).toBe('with the new keys');
    expect(await me.verify()).toEqual({ ok: true, problems: [] });
  }, 60_000);
});
