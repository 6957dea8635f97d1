/**
 * Resolves a request path to a file of the built renderer, refusing anything
 * that would leave its folder. Shared by the app:// protocol and the test server.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { MIME } from './csp';

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/** The file for `urlPath` under `root`, or undefined (404). */
export async function readStatic(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.split(/[?#]/)[0] ?? '/');
  } catch {
    return undefined;
  }
  if (rel === '/' || rel === '') rel = '/index.html';
  const full = path.resolve(root, `.${rel}`);
  if (full !== root && !full.startsWith(root + path.sep)) return undefined;
  try {
    // The real path, with every symlink followed, must still be inside the real root: a link cannot lead out.
    const [realRoot, real] = await Promise.all([fs.realpath(root), fs.realpath(full)]);
    if (!real.startsWith(realRoot + path.sep)) return undefined;
    const body = await fs.readFile(real);
    return { body, contentType: MIME[path.extname(full)] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}
