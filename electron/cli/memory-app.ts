/**
 * `mnemo memory` while the Mnemo app is open and unlocked: the app holds the
 * vault for its session, so the lines go to it over the local channel
 * (core/mcp/channel-client.ts) and no passphrase is needed. The app answers as
 * the memory tool does, records the writes as the command line's, shows them
 * live and lists them for review.
 */
import { defaultStateDir } from '../core/app-paths';
import { connectApp } from '../core/mcp/channel-client';
import { nodeFs } from '../core/vault/fsio';
import { VERSION_2 } from '../core/vault/header';
import { HeaderFile } from '../core/vault/headerfile';
import { serveMemoryLines } from './commands';
import type { CliIo } from './main';
import { sayCli, tc } from './i18n';

/** The answer to every line after the app went away mid-command: nothing more was sent, so nothing is half done. */
const APP_GONE = {
  content: 'Error: The Mnemo app locked or quit while this command ran; this change was not sent. Run mnemo memory again for the remaining lines.',
  is_error: true,
};

/** Serves every input line through the app and returns the exit code, or undefined when no unlocked app answers. */
export async function memoryThroughApp(dir: string, project: string | undefined, io: CliIo): Promise<number | undefined> {
  const vaultId = await vaultIdIn(dir);
  if (vaultId === undefined) return undefined;
  const backend = await connectApp({
    stateDir: defaultStateDir(io.env),
    vaultId,
    via: 'cli',
    client: 'mnemo memory',
    ...(project !== undefined ? { project } : {}),
    readOnly: false,
    onRefused: (r) => io.stderr.write(`mnemo: ${tc('cli:memory.appRefused', { reason: sayCli(r) })}\n`),
    onSlow: () => io.stderr.write(`mnemo: ${tc('cli:memory.appSlow')}\n`),
  });
  if (!backend) return undefined;
  let gone = false;
  const stop = backend.onGone(() => (gone = true));
  try {
    return await serveMemoryLines(io, async (input) => (gone ? APP_GONE : backend.call(input)));
  } finally {
    stop();
    await backend.close();
  }
}

/**
 * The id of the vault in `dir` (what names the app's channel), or undefined when there is none to read. Read from a
 * vault.json of either format (the app, not this process, opens the vault): a format-2 one is version 2.
 */
export async function vaultIdIn(dir: string): Promise<string | undefined> {
  return HeaderFile.read(dir, nodeFs, VERSION_2).then(
    (h) => h.vaultId,
    () => undefined,
  );
}
