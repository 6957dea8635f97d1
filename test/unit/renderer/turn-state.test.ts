/**
 * The chat's turn state (renderer/features/chat/turn-state.ts), as a pure
 * reducer: a reply streams only into its own turn, errors are said unless
 * the transcript says them, what did not go out comes back without
 * overwriting what was typed since, each conversation keeps its own editor,
 * and Retry does what the state calls for.
 */
import { expect, it } from 'vitest';
import { createTurnStore, initialTurnState, retryOffered, retryPlan, turnReducer, type TurnAction, type TurnState } from '../../../renderer/features/chat/turn-state';

const run = (...actions: TurnAction[]): TurnState => actions.reduce(turnReducer, initialTurnState);
const start = (turnId = 't1', extra: Partial<Extract<TurnAction, { type: 'started' }>['turn']> = {}): TurnAction => ({ type: 'started', turn: { turnId, conversationId: 'c1', userText: 'hello', ...extra }, sentFiles: [] });
const edit = { entry: 2, by: 'edit' as const, countBefore: 1 };
const regen = { entry: 2, by: 'regenerate' as const, countBefore: 1 };

it('a started turn streams its own events, and events of another turn change nothing', () => {
  const s = run(start('t1'), { type: 'events', turnId: 't1', events: [{ type: 'text', delta: 'Hi ', start: true }, { type: 'text', delta: 'there.' }] });
  expect(s.live?.text).toBe('Hi there.');
  expect(turnReducer(s, { type: 'events', turnId: 'old', events: [{ type: 'text', delta: 'stray' }] })).toBe(s);
  expect(turnReducer(initialTurnState, { type: 'events', turnId: 't1', events: [{ type: 'text', delta: 'x' }] })).toBe(initialTurnState);
});

it('sending empties the box and clears the last error; Continue and versions leave the box alone', () => {
  const typed = run({ type: 'typed', text: 'next words' }, { type: 'failed', failure: { code: 'send', message: 'down' } });
  expect(turnReducer(typed, { ...start(), sent: true } as TurnAction).draft).toBe('');
  expect(turnReducer(typed, start('t2', { userText: '', continued: true })).draft).toBe('next words');
  expect(turnReducer(typed, { type: 'clearedFailure' }).failure).toBeUndefined();
});

it('an error of the turn is shown and marks it failed; a stop or the round limit is left to the transcript', () => {
  const s = run(start());
  expect(turnReducer(s, { type: 'turnError', turnId: 't1', code: 'cancelled', message: 'Stopped.' })).toBe(s);
  expect(turnReducer(s, { type: 'turnError', turnId: 't1', code: 'max_rounds', message: 'limit' })).toBe(s);
  expect(turnReducer(s, { type: 'turnError', turnId: 'other', code: 'overloaded', message: 'busy' })).toBe(s);
  const failed = turnReducer(s, { type: 'turnError', turnId: 't1', code: 'overloaded', message: 'The API is overloaded.' });
  expect(failed.failure).toEqual({ code: 'overloaded', message: 'The API is overloaded.' });
  expect(failed.liveFailed).toBe(true);
});

it('an answered approval leaves the card list of its own turn only', () => {
  const s = run(start(), { type: 'events', turnId: 't1', events: [{ type: 'approval', id: 'call1', command: 'create', path: '/memories/a.md' } as never, { type: 'approval', id: 'call2', command: 'delete', path: '/memories/b.md' } as never] });
  expect(turnReducer(s, { type: 'decided', turnId: 't1', callId: 'call1' }).live?.approvals.map((a) => a.id)).toEqual(['call2']);
  expect(turnReducer(s, { type: 'decided', turnId: 'later', callId: 'call1' })).toBe(s);
});

it('words that did not go out come back to the box, never over what was typed since', () => {
  expect(run(start(), { type: 'ended', turnId: 't1', giveBack: 'hello' }).draft).toBe('hello');
  expect(run(start(), { type: 'typed', text: 'newer words' }, { type: 'ended', turnId: 't1', giveBack: 'hello' }).draft).toBe('newer words');
  expect(run({ type: 'typed', text: 'mine' }, { type: 'gaveBack', text: 'restored' }).draft).toBe('mine');
  expect(run({ type: 'gaveBack', text: 'restored' }).draft).toBe('restored');
});

it('the end of a turn that is not the one running changes nothing', () => {
  const s = run(start('t2'));
  expect(turnReducer(s, { type: 'ended', turnId: 't1', giveBack: 'stale' })).toBe(s);
  expect(turnReducer(initialTurnState, { type: 'ended', turnId: 't1' })).toBe(initialTurnState);
});

it('an edit main did not send goes back into its conversation’s editor, unless one was opened there meanwhile', () => {
  const turn = start('t1', { userText: 'edited words', version: edit });
  const back = run(turn, { type: 'ended', turnId: 't1', versionSent: false });
  expect(back.live).toBeUndefined();
  expect(back.edits).toEqual({ c1: { entry: 2, text: 'edited words' } });
  expect(run(turn, { type: 'ended', turnId: 't1', versionSent: true }).edits).toEqual({});
  const reopened = run(turn, { type: 'editOpened', id: 'c1', edit: { entry: 0, text: 'typed meanwhile' } }, { type: 'ended', turnId: 't1', versionSent: false });
  expect(reopened.edits.c1).toEqual({ entry: 0, text: 'typed meanwhile' });
});

it('each conversation keeps its own editor; opening one never replaces what is typed in it', () => {
  let s = run({ type: 'editOpened', id: 'c1', edit: { entry: 0, text: 'first' } }, { type: 'editTyped', id: 'c1', text: 'first, changed' });
  s = turnReducer(s, { type: 'editOpened', id: 'c1', edit: { entry: 2, text: 'another message' } });
  s = turnReducer(s, { type: 'editOpened', id: 'c2', edit: { entry: 0, text: 'elsewhere' } });
  expect(s.edits).toEqual({ c1: { entry: 0, text: 'first, changed' }, c2: { entry: 0, text: 'elsewhere' } });
  expect(turnReducer(s, { type: 'editTyped', id: 'c3', text: 'no editor here' })).toBe(s);
  expect(turnReducer(s, { type: 'editClosed', id: 'c2' }).edits).toEqual({ c1: { entry: 0, text: 'first, changed' } });
});

it('a sent edit closes its editor, but not one typed in or replaced after it was sent', () => {
  const s = run({ type: 'editOpened', id: 'c1', edit: { entry: 0, text: 'sent text' } });
  const sent = s.edits.c1!;
  expect(turnReducer(s, { type: 'editSent', id: 'c1', edit: sent }).edits).toEqual({});
  const typedAfter = turnReducer(s, { type: 'editTyped', id: 'c1', text: 'sent text, and more' });
  expect(turnReducer(typedAfter, { type: 'editSent', id: 'c1', edit: sent }).edits.c1?.text).toBe('sent text, and more');
});

it('editors kept across a lock come back where none is open', () => {
  const s = run({ type: 'editOpened', id: 'c1', edit: { entry: 0, text: 'typed since' } }, { type: 'editsRestored', edits: { c1: { entry: 4, text: 'kept' }, c2: { entry: 2, text: 'kept too' } } });
  expect(s.edits).toEqual({ c1: { entry: 0, text: 'typed since' }, c2: { entry: 2, text: 'kept too' } });
});

it('Retry sends what is in the box first, then makes a failed version again, then asks a new reply where the message has versions, else takes the exchange back', () => {
  const c = { id: 'c1', versions: undefined };
  expect(retryPlan(run({ type: 'typed', text: 'unsent' }), c, 4, 0)).toEqual({ kind: 'send' });
  expect(retryPlan(initialTurnState, c, 4, 1)).toEqual({ kind: 'send' });
  // An edit whose turn failed, its editor still open on that message: sent again from there.
  const failedEdit = run({ type: 'editOpened', id: 'c1', edit: { entry: 2, text: 'again' } }, { type: 'refused', failure: { code: 'send', message: 'no key' }, version: edit });
  expect(retryPlan(failedEdit, c, 4, 0)).toEqual({ kind: 'sendEdit' });
  // Its editor is gone (or it was a regeneration): that exchange gets a new reply.
  expect(retryPlan(run({ type: 'refused', failure: { code: 'send', message: 'no key' }, version: edit }), c, 4, 0)).toEqual({ kind: 'regenerate', entry: 2 });
  const failedRegen = run(start('t1', { version: regen }), { type: 'turnError', turnId: 't1', code: 'overloaded', message: 'busy' }, { type: 'ended', turnId: 't1', versionSent: true });
  expect(retryPlan(failedRegen, c, 4, 0)).toEqual({ kind: 'regenerate', entry: 2 });
  // The last message has versions: it cannot be taken back, so it gets a new reply.
  expect(retryPlan(initialTurnState, { id: 'c1', versions: [{ entry: 4, shown: 1, count: 2, by: 'edit' }] }, 4, 0)).toEqual({ kind: 'regenerate', entry: 4 });
  expect(retryPlan(initialTurnState, c, 4, 0)).toEqual({ kind: 'rewind' });
});

it('a turn that ends well forgets the version that failed before it', () => {
  const s = run({ type: 'refused', failure: { code: 'send', message: 'no key' }, version: regen }, start('t1', { version: regen }), { type: 'ended', turnId: 't1', versionSent: true });
  expect(s.failedVersion).toBeUndefined();
});

it('Retry is offered under an error when no turn runs and there is something to send again, not for a stop or a version that could not be shown', () => {
  const failed = (code: string) => run({ type: 'failed', failure: { code, message: code } });
  expect(retryOffered(failed('overloaded'), true, 0)).toBe(true);
  expect(retryOffered(failed('overloaded'), false, 0)).toBe(false);
  expect(retryOffered(run({ type: 'typed', text: 'words' }, { type: 'failed', failure: { code: 'send', message: '' } }), false, 0)).toBe(true);
  expect(retryOffered(failed('send'), false, 2)).toBe(true);
  expect(retryOffered(failed('cancelled'), true, 0)).toBe(false);
  expect(retryOffered(failed('version'), true, 0)).toBe(false);
  expect(retryOffered(run(start(), { type: 'turnError', turnId: 't1', code: 'overloaded', message: '' }), true, 0)).toBe(false);
});

it('the store is current at once after a dispatch and tells its listeners only of real changes', () => {
  const store = createTurnStore();
  let heard = 0;
  const off = store.subscribe(() => heard++);
  store.dispatch(start('t1'));
  expect(store.get().live?.turnId).toBe('t1');
  store.dispatch({ type: 'events', turnId: 'nobody', events: [{ type: 'text', delta: 'x' }] });
  store.dispatch({ type: 'clearedFailure' });
  expect(heard).toBe(1);
  off();
  store.dispatch({ type: 'typed', text: 'after' });
  expect(heard).toBe(1);
  expect(store.get().draft).toBe('after');
});
