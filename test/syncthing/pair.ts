/**
 * Two real Syncthing instances on 127.0.0.1 sharing one folder, for the tests that carry a vault between two
 * "computers" with the engine our users run (issue 18). Everything that could reach past this machine is off:
 * global and local discovery, relays, NAT traversal, STUN, usage and crash reporting, upgrades. Each instance
 * has its own home (keys, config, database) under one temporary folder, a listening port and a GUI/REST port
 * picked free at start, and a random API key. `settled()` waits until both say the folder is idle, nothing is
 * needed, each has the other complete, and the two trees hold the same files twice in a row.
 *
 * Stopping asks each instance to shut down over REST, then kills our own child if it is still there and waits
 * until it is gone (PID 1 here reaps late, so a pid that still answers is not taken as alive: we wait for the
 * child's own exit event).
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

export async function syncthingAvailable(): Promise<boolean> {
  try {
    await run('syncthing', ['--version']);
    return true;
  } catch {
    return false;
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

function deviceXml(d: Instance): string {
  return `<device id="${d.id}" name="${d.name}" compression="metadata" introducer="false"><address>tcp://127.0.0.1:${d.port}</address><paused>false</paused><autoAcceptFolders>false</autoAcceptFolders></device>`;
}

/** The whole configuration, written by us so no default that reaches the network survives. */
function configXml(self: Instance, peer: Instance): string {
  return `<configuration version="36">
  ${deviceXml(self)}
  ${deviceXml(peer)}
  <folder id="${FOLDER_ID}" label="${FOLDER_ID}" path="${esc(self.folder)}" type="sendreceive" rescanIntervalS="2" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
    <filesystemType>basic</filesystemType>
    <device id="${self.id}"></device>
    <device id="${peer.id}"></device>
    <minDiskFree unit="%">0</minDiskFree>
    <versioning></versioning>
    <maxConflicts>10</maxConflicts>
    <markerName>.stfolder</markerName>
  </folder>
  <gui enabled="true" tls="false"><address>127.0.0.1:${self.gui}</address><apikey>${self.apiKey}</apikey></gui>
  <options>
    <listenAddress>tcp://127.0.0.1:${self.port}</listenAddress>
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
    <startBrowser>false</startBrowser>
    <announceLANAddresses>false</announceLANAddresses>
    <reconnectionIntervalS>1</reconnectionIntervalS>
    <setLowPriority>false</setLowPriority>
    <minHomeDiskFree unit="%">0</minHomeDiskFree>
  </options>
</configuration>
`;
}

export class SyncthingPair {
  readonly a: Instance;
  readonly b: Instance;
  private constructor(
    readonly root: string,
    a: Instance,
    b: Instance,
  ) {
    this.a = a;
    this.b = b;
  }

  /** Two instances, their folders `root/a/folder` and `root/b/folder` (created empty), started and connected. */
  static async start(): Promise<SyncthingPair> {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'mnemo-syncthing-'));
    const make = async (name: string): Promise<Instance> => {
      const home = path.join(root, name, 'st');
      const folder = path.join(root, name, 'folder');
      await fs.mkdir(folder, { recursive: true });
      const { stdout, stderr } = await run('syncthing', ['generate', `--home=${home}`, '--no-default-folder', '--skip-port-probing'], { env: envFor(root, name) });
      const id = /Device ID:\s*([A-Z0-9-]{63})/.exec(stdout + stderr)?.[1];
      if (!id) throw new Error(`syncthing generate printed no device id:\n${stdout}${stderr}`);
      return { name, home, folder, id, port: await freePort(), gui: await freePort(), apiKey: crypto.randomBytes(16).toString('hex'), log: [] };
    };
    const pair = new SyncthingPair(root, await make('a'), await make('b'));
    try {
      for (const [self, peer] of [[pair.a, pair.b], [pair.b, pair.a]] as const) {
        await fs.writeFile(path.join(self.home, 'config.xml'), configXml(self, peer));
        // Syncthing refuses a folder without its marker, and would otherwise create it itself.
        await fs.mkdir(path.join(self.folder, '.stfolder'), { recursive: true });
      }
      for (const i of [pair.a, pair.b]) pair.launch(i);
      await pair.until('both instances answer and see each other', async () => (await pair.connected(pair.a, pair.b.id)) && (await pair.connected(pair.b, pair.a.id)), 60_000);
      return pair;
    } catch (err) {
      await pair.stop();
      throw err;
    }
  }

  private launch(i: Instance): void {
    const child = spawn('syncthing', ['serve', `--home=${i.home}`, '--no-browser', '--no-restart', '--no-upgrade', '--logflags=0'], { env: envFor(this.root, i.name), stdio: ['ignore', 'pipe', 'pipe'] });
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

  async until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check()) return;
      if (Date.now() > deadline) throw new Error(`Syncthing: timed out waiting until ${what}\n--- a ---\n${this.a.log.join('').slice(-3000)}\n--- b ---\n${this.b.log.join('').slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Both folders scanned, idle, needing nothing, each complete on the other side, and equal file lists twice in a row. */
  async settled(timeoutMs = 60_000): Promise<void> {
    let last = '';
    await this.until(
      'the folder is the same on both sides',
      async () => {
        try {
          for (const i of [this.a, this.b]) await this.rest(i, `/rest/db/scan?folder=${FOLDER_ID}`, 'POST');
          for (const [i, peer] of [[this.a, this.b], [this.b, this.a]] as const) {
            const st = (await this.rest(i, `/rest/db/status?folder=${FOLDER_ID}`)) as { state?: string; needTotalItems?: number };
            if (st.state !== 'idle' || (st.needTotalItems ?? 1) !== 0) return false;
            const c = (await this.rest(i, `/rest/db/completion?folder=${FOLDER_ID}&device=${peer.id}`)) as { completion?: number; needItems?: number };
            if (c.completion !== 100) return false;
          }
          const now = JSON.stringify([await listing(this.a.folder), await listing(this.b.folder)]);
          const [la, lb] = JSON.parse(now) as [string[], string[]];
          const same = JSON.stringify(la) === JSON.stringify(lb) && now === last;
          last = now;
          return same;
        } catch {
          return false;
        }
      },
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    for (const i of [this.a, this.b]) {
      if (!i.child) continue;
      try {
        await this.rest(i, '/rest/system/shutdown', 'POST');
      } catch {
        // Not answering: killed below.
      }
    }
    for (const i of [this.a, this.b]) {
      if (!i.child || !i.exited) continue;
      const gone = await Promise.race([i.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
      if (!gone) {
        i.child.kill('SIGKILL');
        await i.exited;
      }
    }
    await fs.rm(this.root, { recursive: true, force: true });
  }
}

/** Each instance its own HOME and config folders, so nothing of the user's (or of another test's) is read or written. */
function envFor(root: string, name: string): NodeJS.ProcessEnv {
  const home = path.join(root, name, 'home');
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local/state'), STNOUPGRADE: '1', STNORESTART: '1', STNODEFAULTFOLDER: '1' };
}

/** Every file under `dir` with its size, sorted; Syncthing's own marker and temporaries left out. */
export async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === '.stfolder' || e.name.startsWith('.syncthing.') || e.name.startsWith('~syncthing~')) continue;
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) out.push(`${r} ${(await fs.stat(path.join(dir, r))).size}`);
    }
  };
  await walk('');
  return out.sort();
}
