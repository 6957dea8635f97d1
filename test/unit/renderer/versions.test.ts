import { expect, it } from 'vitest';
import type { TranscriptEntry } from '../../../electron/shared/chat';
import { decorate, keptWhileStreaming, sameDecor, versionCount } from '../../../renderer/features/chat/versions';

let at = 0;
const you = (text: string): TranscriptEntry => ({ role: 'user', text, at: ++at });
const claude = (text: string): TranscriptEntry => ({ role: 'assistant', text, at: ++at, tools: [] });
const idle = { earlier: 0, versions: undefined, busy: false };

it('Regenerate goes on the reply that ends each exchange and names that exchange’s message by its whole-transcript index', () => {
  // Exchange 2 was carried on with Continue: two replies, only the last gets Regenerate.
  const t = [you('a'), claude('A'), you('b'), claude('B1'), claude('B2')];
  const d = decorate(t, idle);
  expect(d.map((x) => x.regenerate)).toEqual([undefined, 0, undefined, undefined, 2]);
  expect(d.map((x) => x.canEdit)).toEqual([true, undefined, true, undefined, undefined]);
  // Loaded as a tail: indexes count the entries left out.
  const tail = decorate(t.slice(2), { ...idle, earlier: 2 });
  expect(tail.map((x) => x.index)).toEqual([2, 3, 4]);
  expect(tail.at(-1)!.regenerate).toBe(2);
});

it('a reply whose message was not loaded gets no Regenerate (its index is unknown)', () => {
  const d = decorate([claude('A'), you('b'), claude('B')], { ...idle, earlier: 1 });
  expect(d[0]!.regenerate).toBeUndefined();
  expect(d[2]!.regenerate).toBe(2);
});

it('an edit’s switch sits on the message, a regeneration’s on the exchange’s last reply; one out of the loaded tail is left out', () => {
  const t = [you('a'), claude('A'), you('b'), claude('B1'), claude('B2'), you('c')];
  const d = decorate(t, {
    ...idle,
    versions: [
      { entry: 0, shown: 1, count: 2, by: 'edit' },
      { entry: 2, shown: 0, count: 3, by: 'regenerate' },
      // The last message has no reply (a version whose turn never answered): its switch goes on the message.
      { entry: 5, shown: 1, count: 2, by: 'regenerate' },
    ],
  });
  expect(d.map((x) => x.version?.entry)).toEqual([0, undefined, undefined, undefined, 2, 5]);
  expect(d[4]!.version).toEqual({ entry: 2, shown: 0, count: 3, of: 'reply' });
  const tail = decorate(t.slice(2), { ...idle, earlier: 2, versions: [{ entry: 0, shown: 1, count: 2, by: 'edit' }] });
  expect(tail.some((x) => x.version)).toBe(false);
});

it('while a turn runs nothing offers Edit or Regenerate and switches are disabled; while editing, only the edited message shows its text', () => {
  const t = [you('a'), claude('A'), you('b'), claude('B')];
  const busy = decorate(t, { ...idle, busy: true, versions: [{ entry: 0, shown: 0, count: 2, by: 'edit' }] });
  expect(busy.some((x) => x.canEdit || x.regenerate !== undefined)).toBe(false);
  expect(busy[0]!.busy).toBe(true);
  const editing = decorate(t, { ...idle, editing: { entry: 2, text: 'b, better' }, versions: [{ entry: 0, shown: 0, count: 2, by: 'edit' }] });
  expect(editing.map((x) => x.editing)).toEqual([undefined, undefined, 'b, better', undefined]);
  expect(editing.some((x) => x.canEdit)).toBe(false);
  expect(editing[0]!.busy).toBe(true);
  expect(editing[3]!.regenerate).toBe(2);
});

it('while a new version streams, an edit hides its message on and a regeneration only the replies after it', () => {
  expect(keptWhileStreaming(6, 0, { entry: 2, by: 'edit' })).toBe(2);
  expect(keptWhileStreaming(6, 0, { entry: 2, by: 'regenerate' })).toBe(3);
  expect(keptWhileStreaming(4, 2, { entry: 4, by: 'edit' })).toBe(2);
  expect(keptWhileStreaming(4, 10, { entry: 2, by: 'edit' })).toBe(0);
});

it('decors compare by value, so a keystroke in one editor redraws only that message', () => {
  const t = [you('a'), claude('A'), you('b')];
  const one = decorate(t, { ...idle, editing: { entry: 2, text: 'x' } });
  const two = decorate(t, { ...idle, editing: { entry: 2, text: 'xy' } });
  expect(one.map((d, i) => sameDecor(d, two[i]))).toEqual([true, true, false]);
  expect(versionCount([{ entry: 2, shown: 0, count: 4, by: 'edit' }], 2)).toBe(4);
  expect(versionCount(undefined, 2)).toBe(1);
});

it('regenerated replies are versions of the reply, not of the message: regenerate twice then edit gives the message ‹ 2 / 2 ›, and its version 1 keeps ‹ 3 / 3 › on the reply', () => {
  const t = [you('a'), claude('A'), you('b'), claude('B')];
  // Main's versions of exchange 0: the original, two regenerations (same message), then an edit (a new one).
  const groups = [0, 0, 0, 1];
  const edited = decorate(t, { ...idle, versions: [{ entry: 0, shown: 3, count: 4, by: 'edit', groups }] });
  expect(edited[0]!.version).toEqual({ entry: 0, shown: 1, count: 2, of: 'message', targets: [2, 3] });
  // The edited message has one reply: no switch on it.
  expect(edited[1]!.version).toBeUndefined();
  const back = decorate(t, { ...idle, versions: [{ entry: 0, shown: 2, count: 4, by: 'edit', groups }] });
  expect(back[0]!.version).toEqual({ entry: 0, shown: 0, count: 2, of: 'message', targets: [2, 3] });
  expect(back[1]!.version).toEqual({ entry: 0, shown: 2, count: 3, of: 'reply', targets: [0, 1, 2] });
  // The first reply shown: the message's switch brings back the one that was shown, not the latest.
  const first = decorate(t, { ...idle, versions: [{ entry: 0, shown: 0, count: 4, by: 'edit', groups }] });
  expect(first[0]!.version?.targets).toEqual([0, 3]);
  expect(first[1]!.version).toMatchObject({ shown: 0, count: 3, of: 'reply' });
  // Regenerating the edited message's reply: the reply of message version 2 gets its own ‹ 2 / 2 ›.
  const again = decorate(t, { ...idle, versions: [{ entry: 0, shown: 4, count: 5, by: 'edit', groups: [0, 0, 0, 1, 1] }] });
  expect(again[0]!.version).toMatchObject({ shown: 1, count: 2, of: 'message', targets: [2, 4] });
  expect(again[1]!.version).toEqual({ entry: 0, shown: 1, count: 2, of: 'reply', targets: [3, 4] });
  expect(sameDecor(edited[0], back[0])).toBe(false);
});
