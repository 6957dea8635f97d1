/**
 * The window live, with real outside writers on its vault at once: two
 * `mnemo mcp` servers (the built CLI, driven by the MCP SDK's Client) and
 * `mnemo memory` send their calls to the unlocked app over the local channel
 * while Claude writes in the app itself. Every acknowledged write is there
 * afterwards (read back from disk once the app has locked), no line of the
 * shared file is lost, the tree shows each writer's files as they come, and
 * the review inbox names each writer. Then a `mnemo mcp` killed with SIGKILL
 * while its calls are in flight: the app carries on, and nothing it answered
 * is lost.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { saveSettings } from '../../electron/core/chat/settings-store';
import { connectApp } from '../../electron/core/mcp/channel-client';
import { createMemoryHandlers } from '../../electron/core/memory/handlers';
import { runMemoryCommand } from '../../electron/core/memory/run';
import { FIRST_PROJECT_ID, Projects } from '../../electron/core/projects/store';
import { DEEP } from '../deep';
import { Ledger, startMcpWriter, startMemoryWriter, viewText, writeRounds, type WriterProcess } from '../mcp-writers';
import { lock, openMemories, PASSPHRASE, type FreshApp, readyApp } from './helpers';
import { allTreeItemNames } from './tree-helpers';
import { buildTestCli } from '../test-cli';

const SHARED = '/memories/shared.md';
const ROUNDS = DEEP ? 60 : 12;
const KILLS = DEEP ? 10 : 3;

let app: FreshApp;
let xdg: string;
const running: WriterProcess[] = [];

test.beforeEach(async () => {
  // The CLI finds the app's channel and the device's state under XDG_STATE_HOME/mnemo: the app keeps its state there.
  xdg = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-xdg-'));
  app = await readyApp({ stateDir: path.join(xdg, 'mnemo') });
  await saveSettings(app.session.unlocked(), { mcpAccess: 'read-write' });
  // The channel starts as the vault unlocks: wait until it answers, as a client would find it.
  const vaultId = app.session.unlocked().vaultId;
  await expect
    .poll(async () => {
      const probe = await connectApp({ stateDir: path.join(xdg, 'mnemo'), vaultId, via: 'mcp', client: 'probe', readOnly: false });
      await probe?.close();
      return probe !== undefined;
    })
    .toBe(true);
});

test.afterEach(async () => {
  for (const p of running.splice(0)) await p.kill();
  await app.cleanup();
  await fs.rm(xdg, { recursive: true, force: true });
});

const vaultDir = () => path.join(app.userDataDir, 'vault');
/** No passphrase: every call must go to the app (without it, one would fail rather than open the vault itself). */
const cliEnv = () => ({ XDG_STATE_HOME: xdg, HOME: xdg });

/** Claude writing in the app: the memory tool's own handlers on the unlocked session, as a chat turn runs them. */
async function claudeInApp(): Promise<Pick<WriterProcess, 'memory'>> {
  const memory = await new Projects(app.session.unlocked()).memoryVault(FIRST_PROJECT_ID);
  const handlers = createMemoryHandlers(memory, { guardMode: () => 'block', source: 'claude' });
  return { memory: (input) => runMemoryCommand(handlers, input) };
}

async function started<T extends WriterProcess>(p: Promise<T> | T): Promise<T> {
  const w = await p;
  running.push(w);
  return w;
}

/** Every write in `ledger` checked against the vault as it is on disk: the app locked, `mnemo memory` opening it itself. */
async function checkOnDisk(ledger: Ledger): Promise<void> {
  await lock(app.page);
  const reader = await started(startMemoryWriter(vaultDir(), { ...cliEnv(), MNEMO_PASSPHRASE: PASSPHRASE }));
  expect(await ledger.problems((p) => viewText(reader, p))).toEqual([]);
  await reader.close();
}

// The writers run the tests' build of the CLI, whose key derivation matches this process's stand-in (fast-kdf.ts).
test.beforeAll(async () => void (await buildTestCli()));

test(`the app, two mnemo mcp servers and mnemo memory write at once (${ROUNDS} rounds each): nothing lost, each shown live and named`, async () => {
  test.setTimeout(DEEP ? 900_000 : 240_000);
  const { page } = app;
  await openMemories(page);
  const ledger = new Ledger(SHARED);
  const claude = await claudeInApp();
  expect(await claude.memory({ command: 'create', path: SHARED, file_text: '' })).toEqual({ content: `File created successfully at: ${SHARED}`, is_error: false });

  const code = await started(startMcpWriter(vaultDir(), cliEnv(), 'Claude Code'));
  const cursor = await started(startMcpWriter(vaultDir(), cliEnv(), 'Cursor'));
  const script = await started(startMemoryWriter(vaultDir(), cliEnv()));
  const writers = [
    { w: claude, who: 'claude', by: 'Claude' },
    { w: code, who: 'code', by: 'Claude Code (MCP)' },
    { w: cursor, who: 'cursor', by: 'Cursor (MCP)' },
    { w: script, who: 'script', by: 'a script' },
  ];
  const done = await Promise.all(writers.map(({ w, who }) => writeRounds(w, who, ledger, { n: ROUNDS })));
  const stderr = [code, cursor, script].map((p) => `${p.name}: ${p.stderr()}`).join('\n');
  expect(ledger.errors, stderr).toEqual([]);
  // A writer whose process went away stops without an error answer: what it printed says why.
  expect(done, stderr).toEqual(writers.map(() => ROUNDS));

  // Live: the tree has every writer's files without a reload, and the inbox names who wrote each.
  // Only the rows near the view are in the page (issue 20): the names are read by scrolling the tree.
  const perWriter = async () => {
    const names = await allTreeItemNames(page.locator('#panel-memories'));
    return writers.map(({ who }) => names.filter((n) => new RegExp(`^${who}-\\d+\\.md$`).test(n)).length);
  };
  await expect.poll(perWriter).toEqual(writers.map(() => ROUNDS));
  await expect(page.getByRole('button', { name: /^To review \d+$/ })).toHaveAccessibleName(`To review ${4 * ROUNDS + 1}`);
  await page.getByRole('button', { name: /^To review/ }).click();
  const inbox = page.getByRole('region', { name: 'To review' }).getByRole('list', { name: 'Changes to review' });
  for (const { who, by } of writers) {
    await expect(inbox.getByRole('button', { name: new RegExp(`^/memories/${who}-\\d+\\.md · new from ${by.replace(/[()]/g, '\\$&')}, not reviewed$`) })).toHaveCount(ROUNDS);
  }
  // The shared file, as the window shows it now, has every line (checked in full on disk below).
  await expect.poll(async () => ((await viewText(claude, SHARED)) ?? "").split('\n').filter((l) => l).length).toBe(4 * ROUNDS);

  await Promise.all([code.close(), cursor.close(), script.close()]);
  await checkOnDisk(ledger);
});

test(`a mnemo mcp killed with SIGKILL while its calls are in flight (${KILLS} times): the app carries on and loses nothing it answered`, async () => {
  test.setTimeout(DEEP ? 900_000 : 240_000);
  const { page } = app;
  await openMemories(page);
  const ledger = new Ledger(SHARED);
  const claude = await claudeInApp();
  expect(await claude.memory({ command: 'create', path: SHARED, file_text: '' })).toMatchObject({ is_error: false });
  let stop = false;
  const steady = await started(startMcpWriter(vaultDir(), cliEnv(), 'Cursor'));
  const steadyRounds = writeRounds(steady, 'cursor', ledger, { stop: () => stop });

  for (let run = 1; run <= KILLS; run++) {
    const victim = await started(startMcpWriter(vaultDir(), cliEnv(), 'Claude Code'));
    let acks = 0;
    let killed: Promise<void> | undefined;
    // Killed after a few answers, with both its loops' next calls sent and not yet answered.
    const onAck = () => {
      if (++acks === 2 * run) killed ??= victim.kill();
    };
    const rounds = Promise.all([writeRounds(victim, `code${run}a`, ledger, { onAck }), writeRounds(victim, `code${run}b`, ledger, { onAck })]);
    await victim.gone;
    running.splice(running.indexOf(victim), 1);
    await rounds;
    expect(acks, victim.stderr()).toBeGreaterThanOrEqual(2 * run);
    expect(ledger.errors, victim.stderr()).toEqual([]);
    // The app is still usable: its own write and the window's tree carry on.
    const after = `/memories/after-kill-${run}.md`;
    expect(await claude.memory({ command: 'create', path: after, file_text: `after kill ${run}` })).toMatchObject({ is_error: false });
    await expect(page.getByRole('treeitem', { name: `after-kill-${run}.md` })).toBeVisible();
  }
  // The other server is served all along, and still after the last kill.
  const before = ledger.ackedBy('cursor').lines.length;
  await expect.poll(() => ledger.ackedBy('cursor').lines.length, { timeout: 60_000 }).toBeGreaterThan(before);
  stop = true;
  await steadyRounds;
  expect(ledger.errors, steady.stderr()).toEqual([]);
  await steady.close();
  // What the killed servers were answered is in the app now (each new file shown live), and on disk.
  for (const f of ledger.ackedBy('code1a').files) await expect(page.getByRole('treeitem', { name: path.posix.basename(f) })).toBeVisible();
  await checkOnDisk(ledger);
});
