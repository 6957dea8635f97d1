/** How the model lists name a model, its window and price tier, and which choices they offer. */
import { beforeAll, describe, expect, it } from 'vitest';
import { modelChoices, windowText } from '../../../renderer/lib/model-choices';
import { startTestI18n } from '../i18n/window-i18n';

beforeAll(() => startTestI18n('en'));

const sonnet = { id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5', contextWindow: 200_000, priceTier: 'standard' as const };
const bare = { id: 'claude-x', displayName: 'claude-x', contextWindow: 1_000_000 };

describe('model choices', () => {
  it('give the window as people say it', () => {
    expect([200_000, 1_000_000, 500_000, 1_500_000, 8_192].map(windowText)).toEqual(['200K context', '1M context', '500K context', '1.5M context', '8.2K context']);
  });

  it('name the model by display name with id, window and price tier as details; by id alone when they are the same', () => {
    // A model's own name and id are not language (`literal`): the list shows them as they are, in any language.
    expect(modelChoices([sonnet, bare], 'claude-x', { listLoaded: true })).toEqual([
      { value: 'claude-sonnet-4-5', short: 'Claude Sonnet 4.5', name: 'Claude Sonnet 4.5', id: 'claude-sonnet-4-5', details: '200K context · Mid price', literal: true },
      { value: 'claude-x', short: 'claude-x', name: 'claude-x', details: '1M context', literal: true },
    ]);
  });

  it('say the window and the tier in the window’s language', async () => {
    try {
      await startTestI18n('ja');
      expect(windowText(200_000)).toMatch(/20万/);
      expect(modelChoices([sonnet], 'claude-sonnet-4-5', { listLoaded: true })[0]!.details).not.toMatch(/context|price/);
    } finally {
      await startTestI18n('en');
    }
  });

  it('offer Default first when following Settings, naming the model it means', () => {
    const choices = modelChoices([sonnet, bare], null, { defaultModel: 'claude-sonnet-4-5', listLoaded: true });
    expect(choices[0]).toEqual({ value: null, short: 'Default (Claude Sonnet 4.5)', name: 'Default', details: 'Claude Sonnet 4.5, as set in Settings' });
    expect(choices.map((c) => c.value)).toEqual([null, 'claude-sonnet-4-5', 'claude-x']);
  });

  it('keep a chosen model the list lacks, marked as not offered only once there is a list', () => {
    expect(modelChoices([sonnet], 'claude-gone', { listLoaded: true })[0]).toMatchObject({ value: 'claude-gone', details: 'Not offered by the API' });
    expect(modelChoices([], 'claude-gone', { listLoaded: false })).toEqual([{ value: 'claude-gone', short: 'claude-gone', name: 'claude-gone', details: '', literal: true }]);
  });
});
