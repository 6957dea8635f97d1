/**
 * Main's own consent dialog in Electron: attached to the window, with Cancel
 * as the default and the cancel answer, so Enter or Escape never allows a
 * change the window asked for.
 */
import { describe, expect, it, vi } from 'vitest';
import { rec } from './electron-stub';

vi.mock('electron', async () => (await import('./electron-stub')).electronStub('/nonexistent'));

describe('electronConsentPort', () => {
  it('shows main’s question with Cancel as default, and allows only on Allow', async () => {
    const { electronConsentPort } = await import('../../../electron/main/window');
    const ask = electronConsentPort(() => undefined);
    rec.messageBoxAnswer = 1;
    expect(await ask({ message: 'The Mnemo window asks to make this change. Allow it?', detail: 'Turn auto-lock off.' })).toBe(false);
    expect(rec.messageBoxes.at(-1)).toMatchObject({ buttons: ['Allow', 'Cancel'], defaultId: 1, cancelId: 1, detail: 'Turn auto-lock off.' });
    rec.messageBoxAnswer = 0;
    expect(await ask({ message: 'Allow it?', detail: 'Remove the API key stored in the vault.' })).toBe(true);
    rec.messageBoxAnswer = 1;
  });
});
