/** Handlers for conversations and turns. A turn runs in the background; its events reach the window as `chatEvent`. */
import { randomBytes } from 'node:crypto';
import { Conversations } from '../../core/chat/conversations';
import { summaryOf, withFlags, withModel } from '../../core/chat/conversation-values';
import { inLiveProjects, requireLiveConversation } from '../../core/projects/live';
import { FIRST_PROJECT_ID, Projects } from '../../core/projects/store';
import { runTurn, type PendingAttachment } from '../../core/chat/turn';
import { exchangeOfEntry, unsentFork } from '../../core/chat/branches';
import type { VersionedStore } from '../../core/chat/temporary';
import type { AttachmentBytes } from '../../core/chat/attachments-send';
import type { ChatEvent } from '../../shared/chat';
import { validateMemoryPath } from '../../core/memory/paths';
import { VaultError } from '../../core/vault/types';
import type { AppSession, RunningTurn } from './session';
import type { TurnOptions } from '../../core/chat/turn';
import type { HandlersFor } from './types';
import { attachmentHandlers } from './attachments';
import { m, said, type LocalMessage } from '../../core/i18n/message';

export function chatHandlers(
  s: AppSession,
): HandlersFor<
  'chatList' | 'chatCreate' | 'chatGet' | 'chatRename' | 'chatSetModel' | 'chatSetFlags' | 'chatDelete' | 'chatSearch' | 'chatSend' | 'chatRegenerate' | 'chatShowVersion' | 'chatContinue' | 'chatStop' | 'chatApprove' | 'chatRewind' | 'chatUndo' | 'chatAttachPick' | 'chatAttachData' | 'chatAttachDrop' | 'chatAttachmentGet'
> {
  const conversations = () => new Conversations(s.unlocked());
  /** Only conversations of live projects: a deleted project's stay stored but out of sight (and out of search) until it is restored. */
  const inLive = <T extends { project?: string | undefined }>(list: T[]) => inLiveProjects(s.unlocked(), list);
  return {
    ...attachmentHandlers(s),
    chatList: async () => [...s.temporary.list(), ...(await inLive(await conversations().list()))],
    chatCreate: async (opts) => {
      const project = (await new Projects(s.unlocked()).require(opts?.project ?? FIRST_PROJECT_ID)).id;
      if (opts?.temporary) return { ...summaryOf(s.temporary.create(project, opts.model)), temporary: true };
      return summaryOf(await conversations().create({ project, ...(opts?.model ? { model: opts.model } : {}) }));
    },
    chatGet: async ({ id, tail, from }) => {
      let c = s.temporary.get(id) ?? (await requireLiveConversation(s.unlocked(), id));
      // A new version a crash or a lock left unsent would hide its fork's versions: the one it came from comes back.
      // Only while no turn runs: a turn sending its new version looks the same until it saves.
      if (!c.temporary && unsentFork(c) && s.turns.size === 0 && !s.isLocking && (await conversations().restoreUnsent(id))) c = await requireLiveConversation(s.unlocked(), id);
      // The API history stays in main; the window gets the transcript, or its last `tail` entries.
      const earlier = Math.min(c.transcript.length, from ?? (tail === undefined ? 0 : Math.max(0, c.transcript.length - tail)));
      const costUSD = c.transcript.reduce((sum, e) => sum + (e.role === 'assistant' && e.usage?.costUSD ? e.usage.costUSD : 0), 0);
      return {
        id: c.id,
        title: c.title,
        created: c.created,
        updated: c.updated,
        transcript: earlier ? c.transcript.slice(earlier) : c.transcript,
        earlier,
        costUSD,
        ...(c.project ? { project: c.project } : {}),
        ...(c.temporary ? { temporary: true } : {}),
        ...(c.model ? { model: c.model } : {}),
        ...(c.forks?.length ? { versions: await (c.temporary ? s.temporary : conversations()).versionsShown(id, c) } : {}),
      };
    },
    chatRename: async ({ id, title }) => {
      if (s.temporary.has(id)) await s.temporary.update(id, (c) => ({ ...c, title: title.replace(/\s+/g, ' ').trim().slice(0, 200) || c.title }));
      else await requireLiveConversation(s.unlocked(), id).then(() => conversations().rename(id, title));
      return null;
    },
    chatSetModel: async ({ id, model }) => {
      if (s.temporary.has(id)) await s.temporary.update(id, (c) => withModel(c, model ?? undefined));
      else await requireLiveConversation(s.unlocked(), id).then(() => conversations().setModel(id, model ?? undefined));
      return null;
    },
    chatSetFlags: async ({ id, pinned, archived }) => {
      // A temporary chat can be pinned for this session; archiving one would only hide what closing forgets.
      if (s.temporary.has(id)) {
        if (archived) throw new VaultError('INVALID', m('errors:conversation.temporaryArchive'));
        await s.temporary.update(id, (c) => withFlags(c, { pinned }));
      } else await requireLiveConversation(s.unlocked(), id).then(() => conversations().setFlags(id, { pinned, archived }));
      return null;
    },
    chatDelete: async ({ id }) => {
      // Closing a temporary chat forgets it; there is nothing stored to delete.
      if (s.temporary.has(id)) s.temporary.delete(id);
      // A deleted project's conversation is out of reach by id, as for every other call, so it is still there on restore.
      else await requireLiveConversation(s.unlocked(), id).then(() => conversations().delete(id));
      s.attachments.drop(id, s.attachments.all(id).map((a) => a.id));
      return null;
    },
    chatSearch: async ({ query }) => inLive(await conversations().search(query)),
    chatSend: async ({ id, text, attachments: asked = [], replace }) => {
      // A file named twice goes once (a window could otherwise send and store one image 100 times).
      const attachmentIds = [...new Set(asked)];
      const ready = await readyForTurn(s, id);
      // The turn gets its own copies: removing a chip while Claude answers must not change what is being stored.
      const attachments = s.attachments.get(id, attachmentIds).map((a) => ({ ...a, data: a.data.slice() }));
      const sent = (saved: boolean) => {
        // Sent and stored with the message: no longer pending. Not sent: they stay, as the message stays in the box.
        if (saved) s.attachments.drop(id, attachmentIds);
      };
      if (replace === undefined) return startTurn(s, id, { ...ready, userText: text, ...(attachments.length ? { attachments } : {}) }, sent);
      // An edit: the message at `replace` and all after it become the other version; its attachments go again.
      return startVersion(s, id, ready, replace, 'edit', async (message, again) => {
        const all = [...again, ...attachments.filter((a) => !again.some((b) => b.id === a.id))];
        if (!text.trim() && all.length === 0) throw new VaultError('INVALID', m('errors:chat.emptyMessage'));
        return { userText: text, attachments: all, onSaved: sent };
      });
    },
    chatRegenerate: async ({ id, entry }) => startVersion(s, id, await readyForTurn(s, id), entry, 'regenerate', async (message, again) => ({ userText: message.text, attachments: again })),
    chatShowVersion: async ({ id, entry, version }) => {
      const store = await versionedStore(s, id);
      const c = s.temporary.get(id) ?? (await conversations().require(id));
      const at = exchangeOfEntry(c, entry);
      // Held while it switches, as a turn is: a send meanwhile is refused, and a lock waits for the switch to be written.
      const slot = reserveTurn(s, m('errors:chat.busyVersion'));
      const switched = store.showVersion(id, at, version);
      slot.turn.finished = switched.catch(() => undefined);
      try {
        await switched;
      } finally {
        s.turns.delete(slot.turnId);
      }
      return null;
    },
    chatContinue: async ({ id }) => startTurn(s, id, { ...(await readyForTurn(s, id)), userText: '', continueTurn: true }),
    chatStop: async ({ turnId }) => {
      s.turns.get(turnId)?.controller.abort();
      return null;
    },
    chatApprove: async ({ turnId, callId, allow }) => {
      const turn = s.turns.get(turnId);
      const resolve = turn?.approvals.get(callId);
      if (!resolve) throw new VaultError('NOT_FOUND', m('errors:chat.approvalGone'));
      turn!.approvals.delete(callId);
      resolve(allow);
      return null;
    },
    chatRewind: async ({ id }) => {
      // Held as a turn is, from the first step: a send meanwhile is refused, and a lock waits until the words and
      // files are handed back (a lock between taking the exchange back and reading its files lost the message).
      const slot = reserveTurn(s, m('errors:chat.busyStopFirst'));
      const rewinding = (async () => {
        const store = s.temporary.has(id) ? s.temporary : conversations();
        const before = s.temporary.has(id) ? await s.temporary.require(id) : await requireLiveConversation(s.unlocked(), id);
        const last = [...before.transcript].reverse().find((e) => e.role === 'user');
        // Its files are read before the exchange is taken back: a failure there leaves the conversation as it was.
        const files = [];
        for (const a of last?.role === 'user' ? (last.attachments ?? []) : []) {
          const bytes = await store.getAttachment(id, a.id);
          if (bytes) files.push({ a, bytes });
        }
        // A lock began meanwhile: the exchange stays where it is (the window is about to close over the words).
        if (s.isLocking) throw new VaultError('LOCKED', m('errors:chat.locking'));
        const text = await store.rewindLast(id);
        // They wait again as chips, so sending the message again sends them too.
        const attachments = files.map(({ a, bytes }) => s.attachments.hold(id, a, bytes));
        return { text, ...(attachments.length ? { attachments } : {}) };
      })();
      slot.turn.finished = rewinding.catch(() => undefined);
      try {
        return await rewinding;
      } finally {
        s.turns.delete(slot.turnId);
      }
    },
    chatUndo: async ({ path, version, project, created }) => {
      // The tool record's path is the conversation's project's /memories path.
      const vault = await new Projects(s.unlocked()).memoryVault(project ?? FIRST_PROJECT_ID);
      const p = validateMemoryPath(path);
      await vault.exclusive(async (ops) => {
        // Only a change that is still the latest is undone: an old card must not delete a folder made at that path
        // since, nor write over the edits made after it. Checked and done in one queue turn.
        const now = ops.stat(p);
        if (now?.kind !== 'file' || now.version !== version) {
          throw new VaultError('CONFLICT', m('errors:chat.undoConflict', { path: p }), p);
        }
        // Undo a change = bring back the version before it; a file Claude created has none, so undo removes it. A file
        // created where the user had deleted one continues that one's version numbers: its version before is the
        // deleted memory, which must stay deleted.
        if (version <= 1 || created) await ops.remove(p, 'user');
        else await ops.writeFile(p, await vault.readVersion(p, version - 1), { mode: 'update', expectedVersion: version, source: 'user', by: { kind: 'restore', fromVersion: version - 1 }, limits: s.limits });
      });
      return { restored: true };
    },
  };
}

/** The vault and store a new turn in conversation `id` runs on; refused while another turn runs or a lock is under way. */
async function readyForTurn(s: AppSession, id: string): Promise<Pick<TurnOptions, 'vault' | 'conversations'>> {
  const vault = s.unlocked();
  const temporary = s.temporary.has(id) ? s.temporary : undefined;
  if (!temporary) await requireLiveConversation(vault, id);
  if (s.isLocking) throw new VaultError('LOCKED', m('errors:chat.locking'));
  if ([...s.turns.values()].length > 0) throw new VaultError('INVALID', m('errors:chat.busySend'));
  return { vault, ...(temporary ? { conversations: temporary } : {}) };
}

/** The store of conversation `id` (a temporary chat's, or the vault's), checked to be reachable. */
async function versionedStore(s: AppSession, id: string): Promise<VersionedStore & AttachmentBytes> {
  if (s.temporary.has(id)) return s.temporary;
  await requireLiveConversation(s.unlocked(), id);
  return new Conversations(s.unlocked());
}

/**
 * Starts a new version from the user message at transcript index `entry`:
 * sets that exchange and all after it aside (branches.ts), then runs the turn
 * `prepare` describes, from the set-aside message and its attachments' bytes.
 * A turn that is not sent (refused before the request) brings the earlier
 * version back before the window hears `done`, so nothing is left cut.
 */
async function startVersion(
  s: AppSession,
  id: string,
  ready: Pick<TurnOptions, 'vault' | 'conversations'>,
  entry: number,
  by: 'edit' | 'regenerate',
  prepare: (message: { text: string }, again: PendingAttachment[]) => Promise<{ userText: string; attachments: PendingAttachment[]; onSaved?: (saved: boolean) => void }>,
): Promise<{ turnId: string }> {
  const store = await versionedStore(s, id);
  const c = s.temporary.get(id) ?? (await new Conversations(s.unlocked()).require(id));
  const at = exchangeOfEntry(c, entry);
  // Held from here: a second send while this one sets its version aside is refused like one during a reply.
  // Checked again here, after the reads above: two regenerations asked at once both passed readyForTurn.
  const slot = reserveTurn(s);
  let prepared!: () => void;
  // A lock waits for this preparation (and, once it has started, for the turn) before the keys go.
  slot.turn.finished = new Promise<void>((resolve) => (prepared = resolve));
  try {
    const { message, before } = await store.branch(id, at, by);
    try {
      const again: PendingAttachment[] = [];
      for (const a of message.attachments) {
        const data = await store.getAttachment(id, a.id);
        if (!data) throw new VaultError('DAMAGED', m('errors:attachment.missingToResend', { name: a.name }));
        again.push({ ...a, data });
      }
      const { userText, attachments, onSaved } = await prepare(message, again);
      // A lock that came meanwhile stopped this turn before it began: nothing is sent, and the version shown before comes back.
      if (slot.turn.controller.signal.aborted || s.isLocking) throw new VaultError('LOCKED', m('errors:chat.locking'));
      return startTurn(s, id, { ...ready, userText, ...(attachments.length ? { attachments } : {}) }, onSaved, {
        slot,
        // Not sent: the version shown before comes back (and the empty new one goes) before the window reloads.
        afterTurn: async (saved) => {
          if (!saved) await store.dropUnsent(id, at, before).catch(() => undefined);
        },
      });
    } catch (err) {
      await store.dropUnsent(id, at, before).catch(() => undefined);
      throw err;
    }
  } catch (err) {
    s.turns.delete(slot.turnId);
    throw err;
  } finally {
    prepared();
  }
}

/** A turn's place in `s.turns`, taken before it starts (a send that first stores something holds it meanwhile). */
function reserveTurn(s: AppSession, busy: LocalMessage = m('errors:chat.busySend')): { turnId: string; turn: RunningTurn } {
  // Checked with nothing awaited before the slot is taken, so of two calls at once exactly one gets it.
  if (s.turns.size > 0) throw new VaultError('INVALID', busy);
  if (s.isLocking) throw new VaultError('LOCKED', m('errors:chat.locking'));
  const slot = { turnId: randomBytes(8).toString('hex'), turn: { controller: new AbortController(), approvals: new Map<string, (allow: boolean) => void>() } };
  s.turns.set(slot.turnId, slot.turn);
  return slot;
}

/** Runs a turn in the background; its events reach the window as `chatEvent`, and a lock waits for it to save. */
function startTurn(
  s: AppSession,
  id: string,
  opts: Omit<TurnOptions, 'conversationId' | 'onEvent' | 'signal' | 'approve' | 'env'>,
  onSaved?: (saved: boolean) => void,
  more: { slot?: { turnId: string; turn: RunningTurn }; afterTurn?: (saved: boolean) => Promise<void> } = {},
): { turnId: string } {
  const { turnId, turn } = more.slot ?? reserveTurn(s);
  const { controller, approvals } = turn;
  // With `afterTurn`, the window hears `done` only once it has run (it reloads the conversation on `done`).
  let held: ChatEvent | undefined;
  const send = (event: ChatEvent) => s.ctx.emit('chatEvent', { turnId, conversationId: id, event });
  turn.finished = runTurn({
    ...opts,
    conversationId: id,
    env: s.ctx.env,
    signal: controller.signal,
    onEvent: (event) => (more.afterTurn && event.type === 'done' ? (held = event) : send(event)),
    onTitled: (title) => s.ctx.emit('chatTitled', { conversationId: id, title }),
    // Keyed on the call id main minted for the card, never on an id the API server chose.
    approve: (req) => new Promise<boolean>((resolve) => approvals.set(req.id, resolve)),
  })
    .then(async (saved) => {
      onSaved?.(saved);
      await more.afterTurn?.(saved);
      if (held) send(held);
    })
    .catch(async () => {
      // Taken back only if its message is not in the conversation (dropUnsent checks): a saved one stays.
      await more.afterTurn?.(false).catch(() => undefined);
      s.ctx.emit('chatEvent', { turnId, conversationId: id, event: { type: 'error', code: 'unknown', ...said(m('errors:chat.failedUnexpectedly')) } });
      // The window ends a turn on `done` only; without it, it would wait for this one forever.
      s.ctx.emit('chatEvent', { turnId, conversationId: id, event: { type: 'done', stopReason: 'error', conversationId: id } });
    })
    .finally(() => s.turns.delete(turnId));
  return { turnId };
}
