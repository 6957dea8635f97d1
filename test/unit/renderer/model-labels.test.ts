/** How the model picker names a model and its window. */
import { describe, expect, it } from 'vitest';
import { modelLabel, windowText } from '../../../renderer/features/settings/ModelPicker';

describe('model labels', () => {
  it('give the window as people say it', () => {
    expect([200_000, 1_000_000, 500_000, 1_500_000, 8_192].map(windowText)).toEqual(['200K context', '1M context', '500K context', '1.5M context', '8.2K context']);
  });

  it('name the model by display name and id, or by id alone when they are the same', () => {
    expect(modelLabel({ id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5', contextWindow: 200_000 })).toBe('Claude Sonnet 4.5 (claude-sonnet-4-5) — 200K context');
    expect(modelLabel({ id: 'claude-x', displayName: 'claude-x', contextWindow: 1_000_000 })).toBe('claude-x — 1M context');
  });
});
