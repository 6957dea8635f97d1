/**
 * Copies the recovery key from main, never from the window: marked so
 * clipboard managers, history and cloud sync leave it alone, and cleared after
 * a minute if the clipboard still holds it (something the user copied since
 * is left alone). The clipboard and the timer are injected so tests can drive
 * both.
 */

/** A format written alongside the text that tells the OS and clipboard managers to keep it out of history and sync. */
export interface ClipboardMarker {
  format: string;
  bytes: Uint8Array;
}

export interface ClipboardPort {
  /** Writes the text and the markers in one go (a separate write would replace the text). */
  write(text: string, markers: ClipboardMarker[]): Promise<void>;
  readText(): Promise<string>;
  clear(): Promise<void>;
}

export interface TimerPort {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How long a copied key stays in the clipboard. */
export const CLEAR_AFTER_MS = 60_000;

const dword0 = () => new Uint8Array(4);

/** The markers for `platform`: macOS's concealed type; Windows' monitor, history and cloud exclusions. */
export function concealedMarkers(platform: NodeJS.Platform): ClipboardMarker[] {
  if (platform === 'darwin') return [{ format: 'org.nspasteboard.ConcealedType', bytes: new Uint8Array(0) }];
  if (platform === 'win32')
    return [
      { format: 'ExcludeClipboardContentFromMonitorProcessing', bytes: new Uint8Array(0) },
      { format: 'CanIncludeInClipboardHistory', bytes: dword0() },
      { format: 'CanUploadToCloudClipboard', bytes: dword0() },
    ];
  return [];
}

/** One secret at a time in the clipboard, with its clearing timer. */
export class SecretClipboard {
  private timer: unknown;

  constructor(
    private readonly port: ClipboardPort,
    private readonly platform: NodeJS.Platform,
    private readonly timers: TimerPort = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
  ) {}

  private pending: string | undefined;

  /** Copies `secret`, concealed, and clears it after CLEAR_AFTER_MS unless the clipboard has changed since. */
  async copy(secret: string): Promise<void> {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    await this.port.write(secret, concealedMarkers(this.platform));
    this.pending = secret;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.pending = undefined;
      void this.clearIfStill(secret);
    }, CLEAR_AFTER_MS);
  }

  /**
   * Copies text that is no secret (an MCP configuration): written as it is, never cleared. A secret
   * still waiting to be cleared stays watched; it is only cleared if it is still what the clipboard holds.
   */
  async copyPlain(text: string): Promise<void> {
    await this.port.write(text, []);
  }

  /**
   * Clears now what `copy` would clear later (app quit): the timer dies with
   * the process, and the OS clipboard would otherwise keep the secret.
   */
  async clearNow(): Promise<void> {
    const secret = this.pending;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    if (secret !== undefined) await this.clearIfStill(secret);
  }

  private async clearIfStill(secret: string): Promise<void> {
    try {
      if ((await this.port.readText()) === secret) await this.port.clear();
    } catch {
      // The clipboard may be unavailable (locked session); nothing more can be done from here.
    }
  }
}
