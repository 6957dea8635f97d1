/**
 * `mnemo chat`: the app's chat loop in a terminal. `--once "message"` (or a
 * message on stdin) answers once and exits; without it, an interactive chat
 * where Ctrl+C stops the reply in progress. `--conversation ID` continues one;
 * `--project NAME` starts one in that project; `--temporary` starts one that
 * is kept only while the command runs and cannot change memory. `--attach
 * FILE` (repeatable) sends files with the first message, checked as the app
 * checks them before anything else happens. `--conversation ID --continue`
 * carries on a reply the round limit stopped, as the window's Continue does.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { AttachmentError, checkSize } from '../core/chat/attachments';
import { PendingAttachments } from '../core/chat/attachments-pending';
import { Conversations } from '../core/chat/conversations';
import { TemporaryConversations, type ConversationStore } from '../core/chat/temporary';
import { runTurn, type PendingAttachment } from '../core/chat/turn';
import type { ChatEvent } from '../shared/chat';
import { CommandUsageError, type Flags } from './commands';
import { liveConversation, selectedProject } from './projects';
import { Exit, type CliCommandContext } from './context';
import { m } from '../core/i18n/message';
import { sayCli, tc } from './i18n';

export async function chatCommand(ctx: CliCommandContext, flags: Flags): Promise<number> {
  // Files are read and checked first: a refused one leaves no conversation behind and sends nothing.
  let attachments: PendingAttachment[];
  try {
    attachments = await readAttachments(flags.attach ?? []);
  } catch (err) {
    if (!(err instanceof AttachmentError)) throw err;
    ctx.stderr.write(`mnemo: ${tc('cli:chat.attachRefused', { reason: sayCli(err) })}\n`);
    return Exit.USAGE;
  }
  const conversations = new Conversations(ctx.vault);
  let conversationId: string;
  let store: ConversationStore | undefined;
  if (flags.temporary && flags.conversation) throw new CommandUsageError(tc('cli:args.chatTemporary'));
  if (flags.temporary) {
    const temporary = new TemporaryConversations();
    conversationId = temporary.create((await selectedProject(ctx, flags)).id).id;
    store = temporary;
  } else if (flags.conversation) {
    const existing = await liveConversation(ctx, flags.conversation);
    if (!existing) return Exit.FAILED;
    conversationId = existing.id;
  } else {
    conversationId = (await conversations.create({ project: (await selectedProject(ctx, flags)).id })).id;
  }
  const kept = store ? tc('cli:chat.keptTemporary') : tc('cli:chat.kept', { id: conversationId });
  if (flags.continue) {
    if (!flags.conversation || flags.once !== undefined || attachments.length) throw new CommandUsageError(tc('cli:args.chatContinue'));
    const ok = await turn(ctx, conversationId, '', new AbortController(), store, undefined, [], true);
    return ok ? Exit.OK : Exit.FAILED;
  }

  const interactive = flags.once === undefined && (ctx.stdin as { isTTY?: boolean }).isTTY === true;
  if (!interactive) {
    const message = flags.once ?? (await readAll(ctx.stdin));
    if (!message.trim()) {
      ctx.stderr.write(`mnemo: ${tc('cli:chat.nothingToSend')}\n`);
      return Exit.USAGE;
    }
    const ok = await turn(ctx, conversationId, message.trim(), new AbortController(), store, undefined, attachments);
    ctx.stderr.write(`${kept}\n`);
    return ok ? Exit.OK : Exit.FAILED;
  }

  const rl = readline.createInterface({ input: ctx.stdin, output: ctx.stderr, prompt: tc('cli:chat.prompt') });
  // Ctrl+C stops the reply in progress; at the prompt it leaves (without a listener readline would only pause).
  let running: AbortController | undefined;
  rl.on('SIGINT', () => (running ? running.abort() : rl.close()));
  ctx.stderr.write(`${store ? tc('cli:chat.introTemporary') : tc('cli:chat.intro', { id: conversationId })}\n`);
  rl.prompt();
  for await (const line of rl) {
    const text = line.trim();
    if (text === '/quit') break;
    if (text) {
      running = new AbortController();
      // The attachments go with the first message only.
      await turn(ctx, conversationId, text, running, store, rl, attachments);
      attachments = [];
      running = undefined;
    }
    rl.prompt();
  }
  rl.close();
  ctx.stderr.write(`\n${store ? tc('cli:chat.goneTemporary') : tc('cli:chat.continueLater', { id: conversationId })}\n`);
  return Exit.OK;
}

/** One turn, streamed to stdout; returns false if it ended in an error. */
async function turn(
  ctx: CliCommandContext,
  conversationId: string,
  text: string,
  controller: AbortController,
  store: ConversationStore | undefined,
  rl?: readline.Interface,
  attachments: PendingAttachment[] = [],
  continueTurn = false,
): Promise<boolean> {
  let failed = false;
  let atLineStart = true;
  const out = (s: string) => {
    ctx.stdout.write(s);
    if (s.length) atLineStart = s.endsWith('\n');
  };
  const line = (s: string) => out(`${atLineStart ? '' : '\n'}${s}\n`);
  const onEvent = (e: ChatEvent) => {
    switch (e.type) {
      case 'text':
        out(e.delta);
        break;
      case 'tool_end':
        line(`[memory] ${e.command} ${e.path}${e.newPath ? ` → ${e.newPath}` : ''}${e.isError ? ` — ${e.content.split('\n')[0]}` : ''}`);
        break;
      case 'retrying':
        ctx.stderr.write(`${tc(e.reason === 'rate_limited' ? 'cli:chat.retryRateLimited' : 'cli:chat.retryBusy', { seconds: e.inSeconds })}\n`);
        break;
      case 'error':
        if (e.code !== 'cancelled') failed = true;
        if (!atLineStart) out('\n');
        ctx.stderr.write(`mnemo: ${sayCli(e)}\n`);
        if (e.code === 'max_rounds' && !store) ctx.stderr.write(`${tc('cli:chat.continueWith', { id: conversationId })}\n`);
        break;
      case 'done':
        if (!atLineStart) out('\n');
        break;
      default:
        break;
    }
  };
  await runTurn({
    vault: ctx.vault,
    conversationId,
    userText: text,
    onEvent,
    signal: controller.signal,
    env: ctx.env,
    ...(store ? { conversations: store } : {}),
    ...(attachments.length ? { attachments } : {}),
    ...(continueTurn ? { continueTurn } : {}),
    // The process ends after the turn: a first exchange's title is stored before it does.
    awaitTitle: true,
    approve: (req) => ask(ctx, rl, controller.signal, tc('cli:chat.approve', { command: req.command, path: `${req.path}${req.newPath ? ` → ${req.newPath}` : ''}` })),
  });
  return !failed;
}

/** Approval in a terminal; without one there is nobody to ask, so the answer is no. */
function ask(ctx: CliCommandContext, rl: readline.Interface | undefined, signal: AbortSignal, question: string): Promise<boolean> {
  if (!rl) {
    ctx.stderr.write(`${question}${tc('cli:chat.notATerminal')}\n`);
    return Promise.resolve(false);
  }
  // The signal withdraws the question on Ctrl+C, so the next line typed is a message again, not a late answer.
  return new Promise((resolve) => rl.question(question, { signal }, (a) => resolve(/^y(es)?$/i.test(a.trim()))));
}

/** Reads and checks each --attach file; errors name the file by its base name only, never a host path or OS text. */
async function readAttachments(files: string[]): Promise<PendingAttachment[]> {
  const pending = new PendingAttachments();
  for (const file of files) {
    const name = path.basename(file);
    const unreadable = new AttachmentError(m('errors:attachment.cliCannotRead', { name }));
    // Size and kind before reading: a huge file is refused without loading it, and a device (/dev/zero) or
    // a pipe, which has no end to read to, is no file to attach.
    const st = await stat(file).catch(() => undefined);
    if (!st?.isFile()) throw unreadable;
    checkSize(name, st.size);
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes) throw unreadable;
    pending.add('cli', name, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
  return pending.all('cli');
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}
