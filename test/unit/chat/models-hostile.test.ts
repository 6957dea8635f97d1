/**
 * The models list from a broken or hostile Models API: whatever GET /v1/models
 * answers, the stored list stays small, valid and usable as a setting, and a
 * failed refresh keeps the list already stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { contextUse, listModels, MAX_MODELS, storedModels } from '../../../electron/core/chat/models';
import { ContextUse } from '../../../electron/shared/projects';
import { reply, text } from '../../fake-anthropic/server';
import { ModelList } from '../../../electron/shared/projects';
import { Settings } from '../../../electron/shared/settings';
import type { FakeModel } from '../../fake-anthropic/models';
import { chatRig, type ChatRig } from './helpers';

let rig: ChatRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** One page of GET /v1/models as sent; its cursor is the last model's id, as the API's is. */
const page = (data: unknown[], more = false) => {
  const last = (data.at(-1) as { id?: unknown } | undefined)?.id;
  return { status: 200, body: JSON.stringify({ data, has_more: more, first_id: null, last_id: typeof last === 'string' ? last : null }) };
};
const model = (id: unknown, display_name: unknown = 'M', max_input_tokens: unknown = 200_000) => ({ type: 'model', created_at: '2025-01-01T00:00:00Z', id, display_name, max_input_tokens });

async function fetched(set: (r: ChatRig) => void) {
  rig = await chatRig();
  set(rig);
  const list = await listModels(rig.t.vault, { refresh: true, env: rig.env, maxRetries: 0 });
  // What the window gets crosses the IPC contract, and a picked id is saved as a setting.
  expect(ModelList.safeParse(list).success).toBe(true);
  for (const m of list.models) expect(Settings.shape.model.safeParse(m.id).success, m.id.slice(0, 40)).toBe(true);
  return list;
}

/** Stores a good list first, then breaks the API: a refresh must fail and leave the good list stored. */
async function refreshFails(reply: (url: URL) => { status: number; body: string }) {
  rig = await chatRig();
  await listModels(rig.t.vault, { refresh: true, env: rig.env, maxRetries: 0 });
  const good = await storedModels(rig.t.vault);
  expect(good.models).toHaveLength(3);
  rig.fake.extra.modelsReply = reply;
  const err = await listModels(rig.t.vault, { refresh: true, env: rig.env, maxRetries: 0 }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(await storedModels(rig.t.vault)).toEqual(good);
  return err;
}

describe('the models list from a hostile Models API', () => {
  it('10,000 models are cut to a bounded list fetched in a bounded number of pages', async () => {
    const many: FakeModel[] = Array.from({ length: 10_000 }, (_, i) => ({ id: `claude-x-${i}`, display_name: `X ${i}`, max_input_tokens: 200_000 }));
    const list = await fetched((r) => (r.fake.extra.models = many));
    expect(list.models.length).toBe(MAX_MODELS);
    expect(rig!.fake.extra.modelListCalls).toBeLessThanOrEqual(Math.ceil(MAX_MODELS / 100));
  });

  it('a server that always says there is another page does not keep the fetch going', async () => {
    let n = 0;
    const list = await fetched((r) => (r.fake.extra.modelsReply = () => page([model(`claude-loop-${n++}`)], true)));
    expect(list.models.length).toBeLessThanOrEqual(MAX_MODELS);
    expect(rig!.fake.extra.modelListCalls).toBeLessThanOrEqual(Math.ceil(MAX_MODELS / 100));
  });

  it('megabyte names are dropped (ids) or shortened (display names), so the stored list stays small', async () => {
    const huge = 'A'.repeat(1 << 20);
    const list = await fetched((r) => (r.fake.extra.models = [{ id: huge, display_name: 'Long id', max_input_tokens: 1 }, { id: 'claude-ok', display_name: huge, max_input_tokens: 200_000 }]));
    expect(list.models.map((m) => m.id)).toEqual(['claude-ok']);
    expect(list.models[0]!.displayName.length).toBeLessThanOrEqual(200);
    expect(JSON.stringify(list).length).toBeLessThan(1000);
  });

  it('markup in names is kept as plain text, and control and direction characters are taken out', async () => {
    const list = await fetched(
      (r) => (r.fake.extra.models = [{ id: 'claude-<b>x</b>', display_name: '<img src=x onerror="alert(1)">\u202Egnp.exe\u0007\n', max_input_tokens: 200_000 }]),
    );
    expect(list.models).toEqual([{ id: 'claude-<b>x</b>', displayName: '<img src=x onerror="alert(1)">gnp.exe', contextWindow: 200_000 }]);
  });

  it('ids with control characters or of another type than a string are dropped', async () => {
    const list = await fetched((r) => (r.fake.extra.modelsReply = () => page([model('claude-a\nb'), model(42), model(null), model({ x: 1 }), null, 'claude-str', model('claude-good', 7)])));
    expect(list.models).toEqual([{ id: 'claude-good', displayName: 'claude-good', contextWindow: 200_000 }]);
  });

  it('negative, non-numeric, fractional and absurd context windows fall back to the known window', async () => {
    const windows: unknown[] = [-5, 0, 'NaN', '300000', 1.5, 1e308, 2 ** 53, null, { n: 1 }];
    const list = await fetched((r) => (r.fake.extra.modelsReply = () => page(windows.map((w, i) => model(`claude-w${i}`, `W${i}`, w)))));
    expect(list.models.map((m) => m.contextWindow)).toEqual(windows.map(() => 200_000));
  });

  it('a model listed twice is kept once, as first listed', async () => {
    const list = await fetched(
      (r) =>
        (r.fake.extra.models = [
          { id: 'claude-dup', display_name: 'First', max_input_tokens: 200_000 },
          { id: 'claude-other', display_name: 'Other', max_input_tokens: 200_000 },
          { id: 'claude-dup', display_name: 'Second', max_input_tokens: 500_000 },
        ]),
    );
    expect(list.models.map((m) => [m.id, m.displayName])).toEqual([
      ['claude-dup', 'First'],
      ['claude-other', 'Other'],
    ]);
  });

  it('a reply that is not JSON fails with a message about the models list, and the stored list is kept', async () => {
    const err = await refreshFails(() => ({ status: 200, body: '<html>gateway</html>' }));
    expect(err?.message).toMatch(/^The API's answer was not a list of models\..*stored list is kept/);
  });

  it('a reply without a list of models, or with none usable, fails and keeps the stored list', async () => {
    for (const body of ['{}', '{"data":"x"}', JSON.stringify({ data: [], has_more: false }), JSON.stringify({ data: [model(7)], has_more: false })]) {
      const err = await refreshFails(() => ({ status: 200, body }));
      expect(err?.message, body).toMatch(/no models Mnemo can use.*stored list is kept/);
      await rig!.close();
      rig = undefined;
    }
  });

  it('a 500 fails with the API error, and the stored list is kept', async () => {
    const err = await refreshFails(() => ({ status: 500, body: JSON.stringify({ type: 'error', error: { type: 'api_error', message: '<script>x</script>' } }) }));
    expect(err?.message).toMatch(/internal error \(500\).*stored list is kept/);
    expect(err?.message).not.toContain('<script>');
  });
});

describe('the context meter from a hostile count_tokens', () => {
  for (const [name, tokens] of [['a negative', -5], ['a non-numeric', '12'], ['a fractional', 10.5], ['an absurd', 1e308], ['a missing', undefined]] as const) {
    it(`${name} count falls back to the last reply's usage, a whole number the window can show`, async () => {
      rig = await chatRig();
      const c = await rig.conversations.create();
      rig.fake.script(reply(text('Hello.')));
      await rig.turn(c.id, 'hi');
      rig.fake.extra.countReply = () => ({ status: 200, body: JSON.stringify({ input_tokens: tokens }) });
      const use = await contextUse(rig.t.vault, await rig.conversations.require(c.id), { env: rig.env });
      expect(ContextUse.safeParse(use).success).toBe(true);
      expect(use.source).toBe('usage');
      expect(Number.isSafeInteger(use.used) && use.used > 0).toBe(true);
    });
  }
});
