/**
 * Real Syncthing instances on 127.0.0.1 sharing one folder, for the tests that carry a vault between "computers"
 * with the engine our users run (docs/sync-design.md §9.3). Everything that could reach past this machine is off:
 * global and local discovery, relays, NAT traversal, STUN, usage and crash reporting, upgrades, the browser. Each
 * instance has its own home (keys, config, database) under one temporary folder, a listening port and a GUI/REST
 * port picked free at start, and a random API key; each knows every other by device id at an explicit
 * tcp://127.0.0.1 address (one dialer per pair, see `deviceXml`). `settled()` waits until every instance says the folder is idle and needs nothing, each
 * has every other complete, and every tree holds the same files with the same bytes for a moment.
 *
 * Stopping asks each instance to shut down over REST, then kills its process group (`serve` is a monitor process and
 * the syncthing it starts) if it is still there, and waits for the child's own exit event (PID 1 here reaps late, so a pid that still answers signal 0 says nothing).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Instance {
  name: string;
  home: string;
  /** The shared folder on this instance's computer. */
  folder: string;
  id: string;
  port: number;
  gui: number;
  apiKey: string;
  child?: ChildProcess;
  exited?: Promise<void>;
  log: string[];
}

export const FOLDER_ID = 'mnemo';

/** Undefined when `syncthing` runs, else what to do about it. */
export async function syncthingMissing(): Promise<string | undefined> {
  try {
    await run('syncthing', ['--version']);
    return undefined;
  } catch (e) {
    return `syncthing is not installed or does not run (${e instanceof Error ? e.message.split('\n')[0] : String(e)}): install it with \`apt-get install syncthing\` (.ci/run does)`;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A device entry of `self`'s config. Only the later instance of each pair dials the earlier one (at its tcp://127.0.0.1
 * address); the earlier has the later as `dynamic`, which nothing resolves with discovery off, so it only accepts.
 * When both dialed at once, 1.19 sometimes lost both connections in the Hello exchange and waited out its 20 s
 * timeout (seen here about one start in five).
 */
function deviceXml(d: Instance, self: Instance, all: Instance[]): string {
  const address = all.indexOf(d) < all.indexOf(self) ? `tcp://127.0.0.1:${d.port}` : 'dynamic';
  return `<device id="${d.id}" name="${d.name}" compression="metadata" introducer="false"><address>${address}</address><paused>false</paused><autoAcceptFolders>false</autoAcceptFolders></device>`;
}

/** The whole configuration, written by us so no default that reaches the network survives. */
function configXml(self: Instance, all: Instance[]): string {
  return `<configuration version="36">
  ${all.map((d) => deviceXml(d, self, all)).join('\n  ')}
  <folder id="${FOLDER_ID}" label="${FOLDER_ID}" path="${esc(self.folder)}" type="sendreceive" rescanIntervalS="2" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
    <filesystemType>basic</filesystemType>
    ${all.map((d) => `<device id="${d.id}"></device>`).join('\n    ')}
    <minDiskFree unit="%">0</minDiskFree>
    <versioning></versioning>
    <pullerPauseS>1</pullerPauseS>
    <maxConflicts>10</maxConflicts>
    <markerName>.stfolder</markerName>
  </folder>
  <gui enabled="true" tls="false"><address>127.0.0.1:${self.gui}</address><apikey>${self.apiKey}</apikey></gui>
  <options>
    <listenAddress>tcp://127.0.0.1:${self.port}</listenAddress>
    <globalAnnounceServer></globalAnnounceServer>
    <globalAnnounceEnabled>false</globalAnnounceEnabled>
    <localAnnounceEnabled>false</localAnnounceEnabled>
    <relaysEnabled>false</relaysEnabled>
    <natEnabled>false</natEnabled>
    <stunKeepaliveStartS>0</stunKeepaliveStartS>
    <stunServer></stunServer>
    <urAccepted>-1</urAccepted>
    <urSeen>3</urSeen>
    <crashReportingEnabled>false</crashReportingEnabled>
    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
    <releasesURL></releasesURL>
    <startBrowser>false</startBrowser>
    <announceLANAddresses>false</announceLANAddresses>
    <reconnectionIntervalS>1</reconnectionIntervalS>
    <setLowPriority>false</setLowPriority>
    <restartOnWakeup>false</restartOnWakeup>
    <minHomeDiskFree unit="%">0</minHomeDiskFree>
  </options>
</configuration>
`;
}

/** What `tree` saw: each file's sha256 by path, and Syncthing's own temporaries apart. */
export interface Tree {
  files: Map<string, string>;
  temps: string[];
}

/** Every file under `dir` with a digest of its bytes; Syncthing's marker left out and its temporaries set apart. */
export async function tree(dir: string): Promise<Tree> {
  const files = new Map<string, string>();
  const temps: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && e.name === '.stfolder') continue;
      if (e.name.startsWith('.syncthing.') || e.name.startsWith('~syncthing~')) temps.push(r);
      else if (e.isDirectory()) await walk(r);
      else if (e.isFile()) {
        // A file may go between the listing and the read (a rename in flight): the next poll sees it as it is.
        const bytes = await fs.readFile(path.join(dir, r)).catch(() => undefined);
        files.set(r, bytes ? crypto.createHash('sha256').update(bytes).digest('hex') : 'gone');
      }
    }
  };
  await walk('');
  return { files: new Map([...files].sort(([x], [y]) => (x < y ? -1 : 1))), temps: temps.sort() };
}

/** Every file under `dir` with its size, sorted; Syncthing's own marker and temporaries left out. */
export async function listing(dir: string): Promise<string[]> {
  const { files } = await tree(dir);
  const out: string[] = [];
  for (const r of files.keys()) out.push(`${r} ${(await fs.stat(path.join(dir, r)).catch(() => ({ size: -1 }))).size}`);
  return out;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Syncthing {
  /** Syncthing's temporaries seen in any folder while waiting (they are left out of the comparison). */
  readonly tempsSeen = new Set<string>();

  private constructor(
    readonly root: string,
    readonly nodes: Instance[],
  ) {}

  get a(): Instance {
    return this.nodes[0]!;
  }

  get b(): Instance {
    return this.nodes[1]!;
  }

  /** `n` instances named a, b, …, their folders `root/<name>/folder` (created empty), started and all connected. */
  static async start(n = 2): Promise<Syncthing> {
    const missing = await syncthingMissing();
    if (missing) throw new Error(missing);
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-syncthing-')));
    const st = new Syncthing(root, []);
    try {
      for (let i = 0; i < n; i++) {
        const name = String.fromCharCode(97 + i);
        const home = path.join(root, name, 'st');
        const folder = path.join(root, name, 'folder');
        await fs.mkdir(folder, { recursive: true });
        const { stdout, stderr } = await run('syncthing', ['generate', `--home=${home}`, '--no-default-folder', '--skip-port-probing'], { env: envFor(root, name) });
        const id = /Device ID:\s*([A-Z0-9-]{63})/.exec(stdout + stderr)?.[1];
        if (!id) throw new Error(`syncthing generate printed no device id:\n${stdout}${stderr}`);
        st.nodes.push({ name, home, folder, id, port: await freePort(), gui: await freePort(), apiKey: crypto.randomBytes(16).toString('hex'), log: [] });
      }
      for (const self of st.nodes) {
        await fs.writeFile(path.join(self.home, 'config.xml'), configXml(self, st.nodes));
        // Syncthing refuses a folder without its marker, and would otherwise create it itself.
        await fs.mkdir(path.join(self.folder, '.stfolder'), { recursive: true });
      }
      // In order, each answering (so listening) before the next starts: a later one's first dial then finds the earlier
      // listening, where a refused dial waits out a back-off of about 5 s.
      for (const i of st.nodes) {
        st.launch(i);
        await st.until(`syncthing ${i.name} answers on its REST port`, async () => (await st.rest(i, '/rest/system/ping').catch(() => undefined)) !== undefined, 30_000);
      }
      await st.until(
        'every instance answers and is connected to every other',
        async () => {
          for (const i of st.nodes) for (const p of st.nodes) if (p !== i && !(await st.connected(i, p.id))) return false;
          return true;
        },
        60_000,
      );
      return st;
    } catch (err) {
      await st.stop();
      throw err;
    }
  }

  private launch(i: Instance): void {
    // Its own process group, so stop() can take whatever it started with it.
    const child = spawn('syncthing', ['serve', `--home=${i.home}`, '--no-browser', '--no-restart', '--no-upgrade', '--no-default-folder', '--logflags=0'], { env: envFor(this.root, i.name), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    i.child = child;
    i.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const keep = (b: Buffer) => {
      i.log.push(b.toString());
      if (i.log.length > 400) i.log.splice(0, i.log.length - 400);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }

  async rest(i: Instance, route: string, method = 'GET'): Promise<unknown> {
    const res = await fetch(`http://127.0.0.1:${i.gui}${route}`, { method, headers: { 'X-API-Key': i.apiKey }, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`${route}: HTTP ${res.status}`);
    const text = await res.text();
    return text ? JSON.parse(text) : undefined;
  }

  private async connected(i: Instance, peer: string): Promise<boolean> {
    try {
      const c = (await this.rest(i, '/rest/system/connections')) as { connections?: Record<string, { connected?: boolean }> };
      return c.connections?.[peer]?.connected === true;
    } catch {
      return false;
    }
  }

  /** The last lines each instance logged, for an error message. */
  logs(): string {
    return this.nodes.map((i) => `--- syncthing ${i.name} ---\n${i.log.join('').slice(-3000)}`).join('\n');
  }

  /** Polls `check` until it holds; past `timeoutMs`, fails naming `what` and the last thing `check` said was missing. */
  async until(what: string, check: () => Promise<boolean | string>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = await check().catch((e: unknown) => `check failed: ${e instanceof Error ? e.message : String(e)}`);
      if (last === true) return;
      if (Date.now() > deadline) throw new Error(`Syncthing: timed out after ${timeoutMs / 1000} s waiting until ${what}${typeof last === 'string' ? ` (last: ${last})` : ''}\n${this.logs()}`);
      await pause(250);
    }
  }

  /** Why the folder is not yet the same everywhere, or the trees' common state. */
  private async state(scan: boolean): Promise<{ why: string } | { key: string }> {
    if (scan) for (const i of this.nodes) await this.rest(i, `/rest/db/scan?folder=${FOLDER_ID}`, 'POST');
    const seqs: number[] = [];
    for (const i of this.nodes) {
      const st = (await this.rest(i, `/rest/db/status?folder=${FOLDER_ID}`)) as { state?: string; needTotalItems?: number; pullErrors?: number; sequence?: number };
      if (st.state !== 'idle') return { why: `${i.name}'s folder is ${st.state}` };
      if (st.needTotalItems !== 0) return { why: `${i.name} needs ${st.needTotalItems} items` };
      if (st.pullErrors) return { why: `${i.name} has ${st.pullErrors} pull errors` };
      seqs.push(st.sequence ?? -1);
      for (const p of this.nodes) {
        if (p === i) continue;
        const c = (await this.rest(i, `/rest/db/completion?folder=${FOLDER_ID}&device=${p.id}`)) as { completion?: number; needItems?: number };
        if (c.completion !== 100 || c.needItems) return { why: `${i.name} has ${p.name} at ${c.completion}% (${c.needItems} items needed)` };
      }
    }
    const trees = await Promise.all(this.nodes.map((i) => tree(i.folder)));
    for (const [k, t] of trees.entries()) for (const temp of t.temps) this.tempsSeen.add(`${this.nodes[k]!.name}: ${temp}`);
    const keys = trees.map((t) => JSON.stringify([...t.files]));
    const differ = keys.findIndex((k) => k !== keys[0]);
    if (differ > 0) {
      const [x, y] = [trees[0]!.files, trees[differ]!.files];
      const diff = [...new Set([...x.keys(), ...y.keys()])].filter((f) => x.get(f) !== y.get(f));
      return { why: `${this.nodes[0]!.name} and ${this.nodes[differ]!.name} differ in ${diff.slice(0, 5).join(', ')}` };
    }
    return { key: `${keys[0]} ${seqs.join(',')}` };
  }

  /**
   * Every folder scanned, idle, needing nothing, every instance complete on every other, and the same files with the
   * same bytes everywhere, unchanged for `stableMs` (with a scan asked for at the start and every 2 s meanwhile).
   */
  async settled(timeoutMs = 30_000, stableMs = 1_000): Promise<void> {
    let key = '';
    let since = 0;
    let scanned = 0;
    await this.until(
      'the folder is the same on every computer and stays so',
      async () => {
        const scan = Date.now() - scanned >= 2_000;
        if (scan) scanned = Date.now();
        const s = await this.state(scan);
        if ('why' in s) {
          key = '';
          return s.why;
        }
        if (s.key !== key) [key, since] = [s.key, Date.now()];
        return Date.now() - since >= stableMs || `the same for ${Date.now() - since} ms`;
      },
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (i) => {
        if (!i.child || !i.exited) return;
        await this.rest(i, '/rest/system/shutdown', 'POST').catch(() => undefined);
        const gone = await Promise.race([i.exited.then(() => true), pause(10_000).then(() => false)]);
        // `serve` runs as a monitor (our child) and the syncthing it starts, both in the group: whatever is left goes.
        const killGroup = () => {
          try {
            process.kill(-i.child!.pid!, 'SIGKILL');
          } catch {
            // The whole group is gone.
          }
        };
        if (!gone) killGroup();
        await i.exited;
        killGroup();
      }),
    );
    await fs.rm(this.root, { recursive: true, force: true });
  }
}

/** Each instance its own HOME and config folders, so nothing of the user's (or of another test's) is read or written. */
function envFor(root: string, name: string): NodeJS.ProcessEnv {
  const home = path.join(root, name, 'home');
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local/state'), STNOUPGRADE: '1', STNORESTART: '1', STNODEFAULTFOLDER: '1' };
}
