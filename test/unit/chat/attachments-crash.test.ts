/**
 * A power cut after any single file-system call while a message with
 * attachments is saved, or while a conversation with attachments is deleted
 * (the vault's simulated disk, unsynced folder changes kept and lost). A send
 * or a deletion is several vault writes, so the disk may hold a state between
 * them; at every point the vault must open and verify, the conversation must
 * open (or be gone, and then unlisted), every attachment an entry names must
 * be there, and the acknowledged first turn must be kept. What the next start
 * sweeps (a deleted conversation's bytes) must be gone after it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkAttachment } from '../../../electron/core/chat/attachments';
import { attachmentsOf, newAttachmentId } from '../../../electron/core/chat/attachments-send';
import { Conversations } from '../../../electron/core/chat/conversations';
import { setApiKey } from '../../../electron/core/chat/settings-store';
import { runTurn, type PendingAttachment } from '../../../electron/core/chat/turn';
import { Vault } from '../../../electron/core/vault/vault';
import { reply, startFakeAnthropic, text, type FakeAnthropic } from '../../fake-anthropic/server';
import { png, utf8 } from '../../fixtures/attachments/make';
import { FLOOR, makeDirs, PASS, type Dirs } from '../vault/crash-sim';
import { SimFs, type Image } from '../vault/sim-fs';

let dirs: Dirs;
let fake: FakeAnthropic;
let base: { image: Image; recoveryKey: string; id: string };

function attach(name: string, bytes: Uint8Array): PendingAttachment {
  const c = checkAttachment(name, bytes);
  return { id: newAttachmentId(), name: c.name, mediaType: c.mediaType, bytes: c.bytes.length, data: c.bytes };
}

beforeAll(async () => {
  dirs = await makeDirs();
  fake = await startFakeAnthropic();
  const sim = new SimFs(dirs.run);
  const { vault, recoveryKey } = await Vault.create(dirs.run, PASS, { kdf: FLOOR, stateDir: dirs.state, fs: sim });
  await setApiKey(vault, fake.apiKey);
  const c = await new Conversations(vault).create();
  fake.script(reply(text('first answer')));
  await runTurn({ vault, conversationId: c.id, userText: 'first', env: { ANTHROPIC_BASE_URL: fake.baseURL }, onEvent: () => undefined, attachments: [attach('a.png', png(4, 4)), attach('a.txt', utf8('first words'))] });
  vault.lock();
  await vault.close();
  base = { image: sim.image('lost'), recoveryKey, id: c.id };
  // The state folder of the computer that made the base: each run starts from it, so the run is that same computer.
  // (Format 2 keeps the device's identity there: an emptied one would be another computer, whose sweep rightly
  // leaves the first one's attachments alone.)
  await fs.cp(dirs.state, baseState(), { recursive: true });
});
const baseState = () => path.join(path.dirname(dirs.state), 'state-base');
afterAll(async () => {
  await fake.close();
  await dirs.cleanup();
});

/** What is wrong with the disk `image` as the app would find it on its next start. */
async function problemsOf(image: Image, expectDeleted: boolean): Promise<string[]> {
  await fs.rm(dirs.check, { recursive: true, force: true });
  await fs.mkdir(dirs.check, { recursive: true });
  const stateDir = await fs.mkdtemp(path.join(path.dirname(dirs.state), 'state-at-crash-'));
  await fs.cp(dirs.state, stateDir, { recursive: true, filter: (src) => !src.endsWith('.tmp') });
  const v = await Vault.open(dirs.check, { fs: new SimFs(dirs.check, image), stateDir });
  try {
    await v.unlockWithRecoveryKey(base.recoveryKey);
    const report = await v.verify();
    if (!report.ok) return [`verify: ${report.problems.join('; ')}`];
    const c = new Conversations(v);
    const listed = (await c.list()).some((s) => s.id === base.id);
    const conv = await c.get(base.id);
    if (listed && !conv) return ['listed but does not open'];
    if (!conv) return expectDeleted ? (v.internal.keys('attachments/').length ? ['gone, but its attachments stay after a start'] : []) : ['the conversation is gone'];
    const problems: string[] = [];
    if (conv.transcript[0]?.text !== 'first') problems.push('the acknowledged first turn is lost');
    for (const ref of attachmentsOf(conv.transcript).values()) if (!(await c.getAttachment(base.id, ref.id))) problems.push(`“${ref.name}” is named but missing`);
    return problems;
  } finally {
    await v.close();
    await fs.rm(stateDir, { recursive: true, force: true });
  }
}

/** Runs `op` on a vault over the base disk and checks the disk a power cut would leave after each of its file-system calls. */
async function cutEverywhere(op: (v: Vault) => Promise<unknown>, expectDeleted: boolean): Promise<{ points: number; failures: string[] }> {
  await fs.rm(dirs.state, { recursive: true, force: true });
  await fs.cp(baseState(), dirs.state, { recursive: true });
  const sim = new SimFs(dirs.run, base.image);
  const v = await Vault.open(dirs.run, { fs: sim, stateDir: dirs.state });
  await v.unlockWithRecoveryKey(base.recoveryKey);
  const failures: string[] = [];
  let points = 0;
  sim.after = async (n, what) => {
    points++;
    for (const outcome of ['kept', 'lost'] as const) {
      const found = await problemsOf(sim.image(outcome), expectDeleted).catch((e: Error) => [`does not open: ${e.message}`]);
      failures.push(...found.map((p) => `call ${n} (${what}), ${outcome}: ${p}`));
    }
  };
  await op(v);
  sim.after = undefined;
  v.lock();
  await v.close();
  failures.push(...(await problemsOf(sim.image('lost'), expectDeleted)).map((p) => `after the op: ${p}`));
  return { points, failures };
}

it('a power cut at any file-system call of a send with attachments leaves every named attachment present and the first turn kept', async () => {
  const r = await cutEverywhere(async (v) => {
    fake.script(reply(text('second answer')));
    const ok = await runTurn({ vault: v, conversationId: base.id, userText: 'second', env: { ANTHROPIC_BASE_URL: fake.baseURL }, onEvent: () => undefined, attachments: [attach('b.png', png(5, 5)), attach('b.txt', utf8('second words'))] });
    expect(ok).toBe(true);
  }, false);
  expect(r.failures).toEqual([]);
  expect(r.points).toBeGreaterThan(5);
}, 300_000);

it('a power cut at any file-system call of deleting a conversation with attachments leaves it whole or gone, its bytes swept at the next start', async () => {
  const r = await cutEverywhere((v) => new Conversations(v).delete(base.id), true);
  // Until the head is gone the conversation opens whole; after, it is gone and what it left is swept.
  expect(r.failures).toEqual([]);
  expect(r.points).toBeGreaterThan(5);
}, 300_000);
