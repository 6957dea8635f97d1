import fs from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { tc } from './i18n';

/** Raised when no passphrase can be had without putting it on the command line. */
export class PassphraseUnavailable extends Error {}

export interface PassphraseSources {
  env: NodeJS.ProcessEnv;
  /** `--passphrase-file` */
  file?: string | undefined;
  /** The environment variable to read (MNEMO_PASSPHRASE, or MNEMO_NEW_PASSPHRASE for passwd). */
  envName: string;
  /** Where an interactive prompt reads and echoes (a TTY), if there is one. */
  tty?: { input: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }; output: Writable } | undefined;
  prompt: string;
  /** Ask twice and require both to match (creating a vault, setting a new passphrase). */
  confirm?: boolean;
}

/**
 * The passphrase from the environment, a file, or a no-echo prompt, in that
 * order. Never from argv: arguments are visible to every user through `ps`.
 */
export async function readPassphrase(src: PassphraseSources): Promise<string> {
  const fromEnv = src.env[src.envName];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (src.file) {
    let text: string;
    try {
      text = await fs.readFile(src.file, 'utf8');
    } catch {
      throw new PassphraseUnavailable(tc('cli:passphrase.fileUnreadable'));
    }
    // A trailing newline is how editors and `echo` end a file; it is not part of the passphrase.
    const passphrase = text.replace(/\r?\n$/, '');
    if (!passphrase) throw new PassphraseUnavailable(tc('cli:passphrase.fileEmpty'));
    return passphrase;
  }
  if (src.tty && src.tty.input.isTTY && src.tty.input.setRawMode) {
    const first = await promptHidden(src.tty.input, src.tty.output, src.prompt);
    if (!first) throw new PassphraseUnavailable(tc('cli:passphrase.noneEntered'));
    if (src.confirm) {
      const again = await promptHidden(src.tty.input, src.tty.output, tc('cli:passphrase.repeat'));
      if (again !== first) throw new PassphraseUnavailable(tc('cli:passphrase.differ'));
    }
    return first;
  }
  throw new PassphraseUnavailable(tc('cli:passphrase.none', { env: src.envName }));
}

/** Reads one line from a TTY in raw mode without echoing it. Ctrl+C aborts. */
function promptHidden(
  input: Readable & { setRawMode?: (raw: boolean) => unknown },
  output: Writable,
  prompt: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(prompt);
    input.setRawMode?.(true);
    input.resume();
    let value = '';
    const finish = (err?: Error) => {
      input.setRawMode?.(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new PassphraseUnavailable(tc('cli:passphrase.cancelled')));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}
