/**
 * Acting as another OS user (`nobody`) for other-user.test.ts: a snippet of
 * plain CommonJS run by `node -e` under `setpriv`, answering JSON. Needs root.
 */
import { spawn } from 'node:child_process';
import { expect, vi } from 'vitest';
import { CHANNEL_VERSION } from '../../../electron/core/mcp/protocol';

export const NOBODY = 65534;

/** Helpers every attacker script starts with: plain CommonJS, so `node -e` runs it as is. */
const PRELUDE = `
const fs = require('fs'), fsp = fs.promises, net = require('net');
const code = (e) => (e && e.code) || String(e);
const attempt = async (f) => { try { await f(); return 'ok'; } catch (e) { return code(e); } };
const connect = (p) => new Promise((res) => { const s = net.connect(p); s.once('connect', () => { s.destroy(); res('ok'); }); s.once('error', (e) => res(code(e))); });
const hello = (p, token) => new Promise((res) => {
  const s = net.connect(p); let buf = '';
  s.once('connect', () => s.write(JSON.stringify({ type: 'hello', version: ${CHANNEL_VERSION}, token, via: 'mcp', client: 'nobody', readOnly: false }) + '\\n'));
  s.on('data', (d) => { buf += d; const nl = buf.indexOf('\\n'); if (nl >= 0) { s.destroy(); res(JSON.parse(buf.slice(0, nl)).type); } });
  s.once('error', (e) => res(code(e))); s.once('close', () => res('closed'));
});
const args = process.argv.slice(1);
`;

function nobody(body: string, args: string[]) {
  const child = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, '-e', `${PRELUDE}(async () => { ${body} })().then((r) => process.stdout.write(JSON.stringify(r) + '\\n'), (e) => { process.stderr.write(String(e)); process.exit(2); });`, ...args], { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<unknown>((resolve, reject) =>
    child.once('close', (status) => {
      if (status !== 0) return reject(new Error(`the attacker failed (${status}): ${err}`));
      // A script that ends with process.exit (to leave a dead socket behind) answers nothing.
      const last = out.trim().split('\n').at(-1);
      resolve(last ? JSON.parse(last) : undefined);
    }),
  );
  return { child, done, out: () => out };
}

/** Runs `body` (an async function body returning JSON) as `nobody`, with `args` as `args`. */
export function asNobody<T = Record<string, string>>(body: string, ...args: string[]): Promise<T> {
  return nobody(body, args).done as Promise<T>;
}

/** A listener the attacker keeps open until told to stop (stdin closed); answers how many connections and bytes it got. */
export async function nobodyListener(at: string, prepare = ''): Promise<{ stop(): Promise<{ connections: number; bytes: number }> }> {
  const run = nobody(
    `${prepare}
     let connections = 0, bytes = 0;
     const srv = net.createServer((s) => { connections++; s.on('data', (d) => (bytes += d.length)); s.on('error', () => {}); });
     await new Promise((res, rej) => { srv.once('error', rej); srv.listen(args[0], res); });
     process.stdout.write('listening\\n');
     await new Promise((res) => { process.stdin.on('data', () => {}); process.stdin.once('end', res); process.stdin.resume(); });
     srv.close();
     return { connections, bytes };`,
    [at],
  );
  await vi.waitFor(() => expect(run.out()).toContain('listening'), { timeout: 10_000 });
  return {
    stop: async () => {
      run.child.stdin.end();
      return (await run.done) as { connections: number; bytes: number };
    },
  };
}

