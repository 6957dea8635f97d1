/**
 * Another OS user against the local channel (issue 19): the app's side runs
 * as this test's user (root here), the attacker as `nobody` through
 * `setpriv`. Every way in must end in a refusal by the kernel (EACCES) or by
 * the app: the socket, the token, the state folder, links to them, planted
 * or pre-made files and folders, a stale token, a pre-bound socket, a parent
 * folder the attacker can change, and all of it under umask 000.
 *
 * Switching to another user needs root. CI and the dev container run as root,
 * so this runs there; on a developer's machine as an ordinary user nothing
 * here can be played, so the file is skipped as a whole (and only then).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChannelError, readToken, writeToken } from '../../../electron/core/mcp/channel-files';
import type { ChannelService } from '../../../electron/core/mcp/channel-connection';
import { ChannelServer } from '../../../electron/core/mcp/channel-server';
import { openChannel } from '../../../electron/core/mcp/channel-client';
import { channelFiles } from '../../../electron/core/mcp/protocol';
import { asNobody, NOBODY, nobodyListener } from './as-nobody';
import { channelApp, later, raw, tempDir } from './rig';

const IS_ROOT = process.getuid?.() === 0;

/** A service that welcomes every hello with the right token: a welcome reached by the attacker is the breach. */
const welcoming: ChannelService = {
  open: async () => ({ project: 'P', call: async () => ({ content: 'secret memory', is_error: false }), list: async () => [], read: async () => 'secret', onChange: () => () => undefined }),
};

/** A home-like folder others can traverse (0755) but not change, owned by this user. */
async function home(): Promise<string> {
  const dir = await tempDir('mnemo-otheruser-');
  await fsp.chmod(dir, 0o755);
  return dir;
}

/** A folder owned by `nobody` inside `parent`. */
async function nobodysFolder(parent: string, name = 'nobody', mode = 0o755): Promise<string> {
  const dir = path.join(parent, name);
  await fsp.mkdir(dir);
  await fsp.chown(dir, NOBODY, NOBODY);
  await fsp.chmod(dir, mode);
  return dir;
}

/** Starts a server that must be refused, with a message matching `message`; one that starts all the same is stopped at the end. */
async function expectRefused(opts: { stateDir: string; vaultId?: string }, message: RegExp): Promise<void> {
  const outcome = await ChannelServer.start({ vaultId: randomBytes(16).toString('hex'), service: welcoming, ...opts }).then(
    (server) => (later(() => server.stop()), 'started'),
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(ChannelError);
  expect((outcome as Error).message).toMatch(message);
}

async function serve(stateDir: string) {
  const vaultId = randomBytes(16).toString('hex');
  const server = await ChannelServer.start({ stateDir, vaultId, service: welcoming });
  later(() => server.stop());
  return { server, vaultId, files: channelFiles(stateDir, vaultId) };
}

const modeOf = async (p: string) => (await fsp.lstat(p)).mode & 0o7777;

afterEach(() => {
  vi.restoreAllMocks();
});

describe.runIf(IS_ROOT)('another OS user against the local channel', () => {
  beforeAll(() => {
    try {
      execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error('These tests run as root and need `setpriv` (util-linux) to act as another user; install util-linux.');
    }
  });

  it('cannot connect to the socket, read the token, or list or stat the state folder, even knowing the exact paths', async () => {
    const stateDir = path.join(await home(), 'state');
    const { server, files } = await serve(stateDir);
    const r = await asNobody(
      `return {
        connect: await connect(args[1]),
        hello: await hello(args[1], '0'.repeat(64)),
        readToken: await attempt(() => fsp.readFile(args[2])),
        list: await attempt(() => fsp.readdir(args[0])),
        statSocket: await attempt(() => fsp.stat(args[1])),
        statToken: await attempt(() => fsp.stat(args[2])),
        chdir: await attempt(async () => process.chdir(args[0])),
        // Nor through the app's process: its open descriptors (the listening socket) and its memory.
        appFds: await attempt(() => fsp.readdir('/proc/' + args[3] + '/fd')),
        appMemory: await attempt(() => fsp.readFile('/proc/' + args[3] + '/mem')),
      };`,
      stateDir,
      files.socket,
      files.token,
      String(process.pid),
    );
    expect(r).toEqual({ connect: 'EACCES', hello: 'EACCES', readToken: 'EACCES', list: 'EACCES', statSocket: 'EACCES', statToken: 'EACCES', chdir: 'EACCES', appFds: 'EACCES', appMemory: 'EACCES' });
    expect(server.size).toBe(0);
  });

  it('cannot reach the socket or the token through a symlink or a hard link of its own making', async () => {
    const base = await home();
    const mine = await nobodysFolder(base);
    const { files } = await serve(path.join(base, 'state'));
    const r = await asNobody(
      `const [sock, token, mine] = args;
      await fsp.symlink(sock, mine + '/s.sock');
      await fsp.symlink(token, mine + '/t');
      return {
        viaSymlink: await connect(mine + '/s.sock'),
        readViaSymlink: await attempt(() => fsp.readFile(mine + '/t')),
        hardLinkSocket: await attempt(() => fsp.link(sock, mine + '/h.sock')),
        hardLinkToken: await attempt(() => fsp.link(token, mine + '/h')),
      };`,
      files.socket,
      files.token,
      mine,
    );
    expect(r).toEqual({ viaSymlink: 'EACCES', readViaSymlink: 'EACCES', hardLinkSocket: 'EACCES', hardLinkToken: 'EACCES' });
  });

  it('cannot plant, replace or remove files in the state folder', async () => {
    const stateDir = path.join(await home(), 'state');
    const { files } = await serve(stateDir);
    const before = await fsp.readFile(files.token, 'utf8');
    const r = await asNobody(
      `const [dir, sock, token] = args;
      return {
        plant: await attempt(() => fsp.writeFile(dir + '/planted', 'x')),
        replaceToken: await attempt(() => fsp.writeFile(token, 'f'.repeat(64))),
        removeToken: await attempt(() => fsp.rm(token)),
        removeSocket: await attempt(() => fsp.rm(sock)),
        symlink: await attempt(() => fsp.symlink('/tmp', dir + '/l')),
        bind: await new Promise((res) => { const s = net.createServer(); s.once('error', (e) => res(code(e))); s.listen(dir + '/other.sock', () => { s.close(); res('ok'); }); }),
      };`,
      stateDir,
      files.socket,
      files.token,
    );
    expect(r).toEqual({ plant: 'EACCES', replaceToken: 'EACCES', removeToken: 'EACCES', removeSocket: 'EACCES', symlink: 'EACCES', bind: 'EACCES' });
    expect(await fsp.readFile(files.token, 'utf8')).toBe(before);
    expect((await fsp.readdir(stateDir)).sort()).toEqual([path.basename(files.socket), path.basename(files.token)].sort());
  });

  describe('a state folder the other user made beforehand', () => {
    for (const mode of [0o777, 0o700]) {
      it(`is refused, not used, when it is theirs (mode ${mode.toString(8)}), and no client sends them anything`, async () => {
        const base = await home();
        const stateDir = await nobodysFolder(base, 'state', mode);
        const vaultId = randomBytes(16).toString('hex');
        const files = channelFiles(stateDir, vaultId);
        // Their own token in the place of ours, and their listener in the socket's place.
        await asNobody(`await fsp.writeFile(args[0], 'e'.repeat(64), { mode: 0o600 }); return {};`, files.token);
        const listener = await nobodyListener(files.socket);
        await expectRefused({ stateDir, vaultId }, /another user/);
        expect((await fsp.lstat(stateDir)).uid).toBe(NOBODY);
        // This user's client does not take their token, so it never connects to their socket.
        expect(await openChannel({ stateDir, vaultId, via: 'mcp', client: 'c', readOnly: false })).toEqual({ absent: 'no-token' });
        expect(await listener.stop()).toEqual({ connections: 0, bytes: 0 });
      });
    }

    it('is refused when it is a symlink of theirs to a folder of theirs', async () => {
      const base = await home();
      const theirs = await nobodysFolder(base, 'theirs', 0o777);
      const stateDir = path.join(base, 'state');
      await fsp.symlink(theirs, stateDir);
      await expectRefused({ stateDir }, /not a folder/);
      expect(await fsp.readdir(theirs)).toEqual([]);
    });
  });

  it('a folder of this user left open (0777) is closed before use: what the other user planted in it earlier does not let them in', async () => {
    const stateDir = path.join(await home(), 'state');
    await fsp.mkdir(stateDir);
    await fsp.chmod(stateDir, 0o777);
    const vaultId = randomBytes(16).toString('hex');
    const files = channelFiles(stateDir, vaultId);
    // A token of theirs and a dead socket of theirs in our places, and a folder of theirs inside.
    await asNobody(
      `const [dir, sock, token] = args;
      await fsp.writeFile(token, 'e'.repeat(64), { mode: 0o666 });
      await new Promise((res) => { const s = net.createServer(); s.listen(sock, res); });
      await fsp.mkdir(dir + '/inside', { mode: 0o777 });
      process.exit(0);`,
      stateDir,
      files.socket,
      files.token,
    );
    expect((await fsp.lstat(files.socket)).uid).toBe(NOBODY);
    const server = await ChannelServer.start({ stateDir, vaultId, service: welcoming });
    later(() => server.stop());
    expect(await modeOf(stateDir)).toBe(0o700);
    expect((await fsp.lstat(files.socket)).uid).toBe(0);
    expect((await fsp.lstat(files.token)).uid).toBe(0);
    expect(await fsp.readFile(files.token, 'utf8')).not.toBe('e'.repeat(64));
    const r = await asNobody(`return { connect: await connect(args[0]), inside: await attempt(() => fsp.writeFile(args[1] + '/inside/x', 'x')) };`, files.socket, stateDir);
    expect(r).toEqual({ connect: 'EACCES', inside: 'EACCES' });
  });

  it('a socket the other user pre-bound and listens on, in a folder of this user left open, makes the app refuse, not share it', async () => {
    const stateDir = path.join(await home(), 'state');
    await fsp.mkdir(stateDir);
    await fsp.chmod(stateDir, 0o777);
    const vaultId = randomBytes(16).toString('hex');
    const files = channelFiles(stateDir, vaultId);
    const listener = await nobodyListener(files.socket);
    await expectRefused({ stateDir, vaultId }, /Another Mnemo/);
    // The folder was closed all the same, and no token was written for their socket to collect.
    expect(await modeOf(stateDir)).toBe(0o700);
    await expect(fsp.stat(files.token)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await openChannel({ stateDir, vaultId, via: 'mcp', client: 'c', readOnly: false })).toEqual({ absent: 'no-token' });
    // The app's probe connected and sent nothing.
    expect((await listener.stop()).bytes).toBe(0);
  });

  it('a stale token from an earlier run is out of their reach, and worthless once the app runs again', async () => {
    const stateDir = path.join(await home(), 'state');
    await fsp.mkdir(stateDir, { mode: 0o700 });
    const vaultId = randomBytes(16).toString('hex');
    const files = channelFiles(stateDir, vaultId);
    // What a killed app leaves: its token file and a socket nobody answers on.
    const stale = await writeToken(files.token);
    execFileSync(process.execPath, ['-e', `require('net').createServer().listen(process.argv[1], () => process.exit(0))`, files.socket]);
    expect((await fsp.lstat(files.socket)).isSocket()).toBe(true);
    expect(await asNobody(`return { read: await attempt(() => fsp.readFile(args[0])), connect: await connect(args[1]) };`, files.token, files.socket)).toEqual({ read: 'EACCES', connect: 'EACCES' });
    const server = await ChannelServer.start({ stateDir, vaultId, service: welcoming });
    later(() => server.stop());
    expect(await readToken(files.token)).not.toBe(stale);
    const c = await raw(files.socket);
    c.hello(stale);
    await c.closed;
    expect(c.frames.map((f) => f.type)).toEqual(['refused']);
  });

  describe('a folder above the state folder that the other user can change', () => {
    it('is refused when it is theirs: they could put a folder of their own in the state folder’s place after the app checked it', async () => {
      const parent = await nobodysFolder(await home(), 'shared', 0o755);
      const stateDir = path.join(parent, 'state');
      await expectRefused({ stateDir }, /can be changed by another user/);
    });

    it('is refused when anyone may write it and it is not sticky, even two levels up', async () => {
      const base = await home();
      const open = path.join(base, 'open');
      await fsp.mkdir(path.join(open, 'deeper'), { recursive: true });
      await fsp.chmod(open, 0o777);
      await expectRefused({ stateDir: path.join(open, 'deeper', 'state') }, /can be changed by another user/);
    });

    it('is accepted when it is sticky like /tmp (others cannot move what is not theirs), and still keeps them out', async () => {
      const base = await home();
      const sticky = path.join(base, 'tmp');
      await fsp.mkdir(sticky);
      await fsp.chmod(sticky, 0o1777);
      const stateDir = path.join(sticky, 'state');
      const { files } = await serve(stateDir);
      const r = await asNobody(
        `const [dir, sock] = args;
        return { move: await attempt(() => fsp.rename(dir, dir + '.old')), connect: await connect(sock) };`,
        stateDir,
        files.socket,
      );
      expect(r).toEqual({ move: 'EPERM', connect: 'EACCES' });
    });

    it('swapped for their own folder right after the app checked it (the race, made exact): no client of this user hands them the token', async () => {
      const parent = await nobodysFolder(await home(), 'shared', 0o755);
      const stateDir = path.join(parent, 'state');
      const realLstat = fsp.lstat;
      let swapped = false;
      vi.spyOn(fsp, 'lstat').mockImplementation(async (...a: Parameters<typeof fsp.lstat>) => {
        const st = await realLstat(...a);
        if (a[0] === stateDir && !swapped) {
          swapped = true;
          await asNobody(`await fsp.rename(args[0], args[0] + '.old'); await fsp.mkdir(args[0], { mode: 0o777 }); await fsp.chmod(args[0], 0o777); return {};`, stateDir);
        }
        return st;
      });
      const vaultId = randomBytes(16).toString('hex');
      const files = channelFiles(stateDir, vaultId);
      const started = ChannelServer.start({ stateDir, vaultId, service: welcoming });
      const server = await started.catch(() => undefined);
      if (server) later(() => server.stop());
      vi.restoreAllMocks();
      // Then they put their own listener where clients connect: the app's socket moved aside, or the whole folder if it is the app's.
      const listener = await nobodyListener(
        files.socket,
        `if (await attempt(() => fsp.rename(args[0], args[0] + '.real')) !== 'ok') {
           const dir = require('path').dirname(args[0]);
           await fsp.rename(dir, dir + '.aside'); await fsp.mkdir(dir, { mode: 0o755 });
         }`,
      );
      await openChannel({ stateDir, vaultId, via: 'mcp', client: 'c', readOnly: false, connectTimeoutMs: 2000 });
      expect(await listener.stop()).toEqual({ connections: 0, bytes: 0 });
      await expect(started).rejects.toThrow(/can be changed by another user/);
    });
  });

  describe('with umask 000 in the app’s process (the app must not depend on it)', () => {
    it('never lets the state folder, the token or the socket exist with a wider mode, not even for a moment', async () => {
      const born: Record<string, number> = {};
      const realChmod = fsp.chmod;
      const realRename = fsp.rename;
      const realMkdir = fsp.mkdir;
      // Each file's mode as first made, before the app narrows or renames anything.
      vi.spyOn(fsp, 'chmod').mockImplementation(async (p, m) => {
        if (typeof p === 'string' && p.endsWith('.sock')) born.socket ??= await modeOf(p);
        return realChmod(p, m);
      });
      vi.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
        if (typeof from === 'string' && from.endsWith('.tmp')) born.token = await modeOf(from);
        return realRename(from, to);
      });
      vi.spyOn(fsp, 'mkdir').mockImplementation(async (p, o) => {
        const made = await realMkdir(p, o);
        if (typeof p === 'string' && p.endsWith('state')) born.folder = await modeOf(p);
        return made;
      });
      const stateDir = path.join(await home(), 'state');
      const previous = process.umask(0);
      let files: ReturnType<typeof channelFiles>;
      try {
        ({ files } = await serve(stateDir));
      } finally {
        process.umask(previous);
      }
      expect(born).toEqual({ folder: 0o700, token: 0o600, socket: 0o600 });
      expect(await modeOf(files.socket)).toBe(0o600);
      expect(await modeOf(files.token)).toBe(0o600);
      expect(await modeOf(stateDir)).toBe(0o700);
    });

    it('keeps the other user out of the full app’s channel', async () => {
      const base = await home();
      const previous = process.umask(0);
      let app: Awaited<ReturnType<typeof channelApp>>;
      try {
        app = await channelApp({ dir: base });
      } finally {
        process.umask(previous);
      }
      const r = await asNobody(`return { connect: await connect(args[0]), read: await attempt(() => fsp.readFile(args[1])), list: await attempt(() => fsp.readdir(args[2])) };`, app.files.socket, app.files.token, app.stateDir);
      expect(r).toEqual({ connect: 'EACCES', read: 'EACCES', list: 'EACCES' });
      expect(await app.connect()).toBeDefined();
    });
  });
});
