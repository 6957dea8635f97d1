// @vitest-environment jsdom
/** A click on a link in rendered content is handed to main, never followed by the window. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLink } from '../../../renderer/lib/links';

afterEach(() => {
  vi.restoreAllMocks();
  Reflect.deleteProperty(window, 'mnemo');
});

describe('openLink', () => {
  it('hands an https link to main through openLink', () => {
    const viaMain = vi.fn(async () => ({ ok: true }));
    Object.defineProperty(window, 'mnemo', { value: { openLink: viaMain }, configurable: true });
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    openLink('https://docs.anthropic.com/');
    expect(viaMain).toHaveBeenCalledWith({ href: 'https://docs.anthropic.com/' });
    expect(open).not.toHaveBeenCalled();
  });

  it('ignores javascript:, data:, relative and malformed links', () => {
    const viaMain = vi.fn(async () => ({ ok: true }));
    Object.defineProperty(window, 'mnemo', { value: { openLink: viaMain }, configurable: true });
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    for (const href of ['javascript:alert(1)', 'data:text/html,x', '/index.html', '#x', 'http//x', ' javascript:x']) openLink(href);
    expect(viaMain).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });

  it('never opens a window itself, even when main is unreachable', async () => {
    const viaMain = vi.fn(async () => {
      throw new Error('main is gone');
    });
    Object.defineProperty(window, 'mnemo', { value: { openLink: viaMain }, configurable: true });
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    openLink('https://github.com/x');
    await Promise.resolve();
    expect(viaMain).toHaveBeenCalledWith({ href: 'https://github.com/x' });
    expect(open).not.toHaveBeenCalled();
  });
});
