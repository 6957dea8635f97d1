import { afterEach, expect, it } from 'vitest';
import { Conversations } from '../../../electron/core/chat/conversations';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import { tempVault, type TempVault } from '../vault/helpers';

let t: TempVault | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const said = (...texts: string[]): TranscriptEntry[] => texts.map((text, i) => (i % 2 ? { role: 'assistant', text, at: i, tools: [] } : { role: 'user', text, at: i }));
const marked = (h: { snippet: string; marks: Array<[number, number]> }) => h.marks.reduceRight((s, [a, b]) => `${s.slice(0, a)}[${s.slice(a, b)}]${s.slice(b)}`, h.snippet);

async function seeded() {
  t = await tempVault();
  const store = new Conversations(t.vault);
  const add = async (title: string, transcript: TranscriptEntry[], updated: number) => {
    const c = await store.create();
    // Through update, as the app changes a stored conversation: format 2 takes a save over a stored head for another
    // computer's concurrent write and merges the two (the newest date wins), so the seeded dates would be lost.
    await store.update(c.id, (x) => ({ ...x, title, transcript, updated }));
    return c.id;
  };
  const ids = {
    pt: await add('Investimentos', said('Quero vender AÇÕES amanhã', 'As ações subiram.'), 3000),
    ja: await add('メモ', said('長期記憶の保存について教えて'), 2000),
    table: await add('Budget', said('Show the plan', '| Item | Cost |\n| --- | --- |\n| **Rent** | 900 |\n| [Food](https://food.test) | 300 |'), 1000),
    far: await add('Long one', said(`${'filler words here '.repeat(400)}the hidden marmalade recipe`), 500),
  };
  return { store, ids };
}

it('search ignores case and accents, marks the original letters, and returns newest first', async () => {
  const { store, ids } = await seeded();
  const hits = await store.search('acoes');
  expect(hits.map((h) => h.id)).toEqual([ids.pt]);
  expect(marked(hits[0]!)).toBe('Quero vender [AÇÕES] amanhã');
  expect((await store.search('INVESTIMENTOS')).map((h) => h.id)).toEqual([ids.pt]);
});

it('search finds CJK inside a run of characters, with no word boundaries', async () => {
  const { store, ids } = await seeded();
  const [hit] = await store.search('記憶');
  expect(hit?.id).toBe(ids.ja);
  expect(marked(hit!)).toBe('長期[記憶]の保存について教えて');
});

it('a match in a Markdown table gives a clean snippet: no pipes, rules, emphasis or link syntax', async () => {
  const { store, ids } = await seeded();
  const [hit] = await store.search('food');
  expect(hit?.id).toBe(ids.table);
  expect(hit!.snippet).toBe('Item Cost Rent 900 Food 300');
  expect(marked(hit!)).toContain('[Food]');
  // Words split by table cells match as the text shows them.
  expect((await store.search('rent 900')).map((h) => h.id)).toEqual([ids.table]);
});

it('a match thousands of characters into a message is found and the snippet is cut around it', async () => {
  const { store, ids } = await seeded();
  const [hit] = await store.search('Marmalade');
  expect(hit?.id).toBe(ids.far);
  expect(hit!.snippet.startsWith('…')).toBe(true);
  expect(hit!.snippet.length).toBeLessThan(200);
  expect(marked(hit!)).toContain('[marmalade]');
});

it('a query that matches nothing, even folded, finds nothing; a blank one finds nothing', async () => {
  const { store } = await seeded();
  expect(await store.search('açõesz')).toEqual([]);
  expect(await store.search('   ')).toEqual([]);
});

it('search stops at its limit, keeping the newest matches', async () => {
  const { store, ids } = await seeded();
  // Every seeded conversation has an "e" somewhere; newest first: pt, ja (メモ… no "e"), table, far.
  expect((await store.search('e', 2)).map((h) => h.id)).toEqual([ids.pt, ids.table]);
});
