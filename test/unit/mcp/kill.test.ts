/**
 * Real `mnemo mcp` servers on one vault with no app running (each opens the
 * vault per call with MNEMO_PASSPHRASE), one of them killed with SIGKILL at
 * random moments and started again while the other keeps writing: nothing
 * acknowledged is lost, the vault verifies clean, and the survivor is never
 * kept out by a dead holder's lock.
 */
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DEEP, prng, randomSeed } from '../../deep';
import { Ledger, startMcpWriter, startMemoryWriter, viewText, writeRounds, type WriterProcess } from '../../mcp-writers';
import { initVault, mnemo } from './helpers';

const SHARED = '/memories/shared.md';
const KILLS = DEEP ? 60 : 8;

const running: WriterProcess[] = [];
const roots: string[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.kill();
  for (const r of roots.splice(0)) await fs.rm(r, { recursive: true, force: true });
});

describe('mnemo mcp killed mid-write, the app not running', () => {
  it(`a server killed with SIGKILL ${KILLS} times while another keeps writing loses nothing acknowledged`, async () => {
    const v = await initVault();
    roots.push(v.root);
    const ledger = new Ledger(SHARED);
    const steady = await startMcpWriter(v.vault, v.env, 'Steady Editor');
    running.push(steady);
    expect(await steady.memory({ command: 'create', path: SHARED, file_text: '' })).toEqual({ content: `File created successfully at: ${SHARED}`, is_error: false });
    let stop = false;
    let steadyAcks = 0;
    // The survivor's slowest call, printed for the record (a dead holder's lock would show as a wait of seconds).
    let slowest = 0;
    const timed = {
      memory: async (input: Record<string, unknown>) => {
        const t = performance.now();
        try {
          return await steady.memory(input);
        } finally {
          slowest = Math.max(slowest, performance.now() - t);
        }
      },
    };
    const steadyRounds = writeRounds(timed, 'steady', ledger, { stop: () => stop, onAck: () => steadyAcks++ });

    const seed = randomSeed('mnemo mcp SIGKILL');
    const random = prng(seed);
    let killedWhileWriting = 0;
    for (let run = 1; run <= KILLS; run++) {
      const victim = await startMcpWriter(v.vault, v.env, 'Victim Editor');
      running.push(victim);
      const kill = () => void victim.kill();
      let timer: NodeJS.Timeout | undefined;
      // Mostly once it is writing; every fourth run at any moment, mostly while its first call unlocks the vault (the load under the lock).
      if (run % 4 === 0) timer = setTimeout(kill, random() * 400);
      let acked = false;
      const onAck = () => {
        if (acked) return;
        acked = true;
        killedWhileWriting++;
        timer ??= setTimeout(kill, random() * 150);
      };
      // Two loops on one server: a call is queued behind another when the kill lands.
      const rounds = Promise.all([writeRounds(victim, `victim${run}a`, ledger, { onAck }), writeRounds(victim, `victim${run}b`, ledger, { onAck })]);
      // Counted only once the process is gone (reaped), never by its pid.
      await victim.gone;
      clearTimeout(timer);
      running.splice(running.indexOf(victim), 1);
      await rounds;
      expect(ledger.errors, victim.stderr()).toEqual([]);
    }
    // The survivor still writes after the last kill: a dead holder's lock never kept it out.
    const before = steadyAcks;
    await expect.poll(() => steadyAcks, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(before + 2);
    stop = true;
    await steadyRounds;
    expect(ledger.errors, steady.stderr()).toEqual([]);
    await steady.close();
    running.splice(running.indexOf(steady), 1);
    expect(killedWhileWriting).toBeGreaterThan(KILLS / 2);
    console.log(`mnemo mcp SIGKILL: ${ledger.acks} writes acknowledged, ${killedWhileWriting} of ${KILLS} kills while writing; the survivor's slowest call ${Math.round(slowest)} ms`);

    const verify = await mnemo(['verify', '--vault', v.vault], { env: v.env });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const reader = startMemoryWriter(v.vault, v.env);
    running.push(reader);
    expect(await ledger.problems((p) => viewText(reader, p))).toEqual([]);
    expect(ledger.acks).toBeGreaterThan(KILLS);
    await reader.close();
    running.splice(running.indexOf(reader), 1);
  }, DEEP ? 1_200_000 : 300_000);
});
