import { checkAttachment } from '../../../electron/core/chat/attachments';
import { newAttachmentId } from '../../../electron/core/chat/attachments-send';
import { runTurn, type ApprovalRequest, type PendingAttachment } from '../../../electron/core/chat/turn';
import { Conversations } from '../../../electron/core/chat/conversations';
import { saveSettings } from '../../../electron/core/chat/settings-store';
import type { ChatEvent } from '../../../electron/shared/chat';
import { startFakeAnthropic, type FakeAnthropic } from '../../fake-anthropic/server';
import { tempVault, type TempVault } from '../vault/helpers';

export interface ChatRig {
  t: TempVault;
  fake: FakeAnthropic;
  conversations: Conversations;
  env: NodeJS.ProcessEnv;
  /** Runs one turn and returns every event it emitted. */
  turn(conversationId: string, text: string, extra?: { signal?: AbortSignal; approve?: (r: ApprovalRequest) => Promise<boolean>; onEvent?: (e: ChatEvent) => void; maxRetries?: number; continueTurn?: boolean }): Promise<ChatEvent[]>;
  close(): Promise<void>;
}

export async function chatRig(): Promise<ChatRig> {
  const t = await tempVault();
  const fake = await startFakeAnthropic();
  const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseURL };
  const conversations = new Conversations(t.vault);
  return {
    t,
    fake,
    conversations,
    env,
    async turn(conversationId, text, extra = {}) {
      const events: ChatEvent[] = [];
      await runTurn({
        vault: t.vault,
        conversationId,
        userText: text,
        env,
        maxRetries: extra.maxRetries ?? 2,
        // Retries without a server-named wait back off a few ms here, not the SDK's 0.5-8 s.
        backoffCapMs: 5,
        onEvent: (e) => {
          events.push(e);
          extra.onEvent?.(e);
        },
        ...(extra.signal ? { signal: extra.signal } : {}),
        ...(extra.approve ? { approve: extra.approve } : {}),
        ...(extra.continueTurn ? { continueTurn: true } : {}),
      });
      return events;
    },
    async close() {
      await fake.close();
      await t.cleanup();
    },
  };
}

export const textOf = (events: ChatEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
export const errorOf = (events: ChatEvent[]) => events.find((e): e is Extract<ChatEvent, { type: 'error' }> => e.type === 'error');
export const toolEnds = (events: ChatEvent[]) => events.filter((e): e is Extract<ChatEvent, { type: 'tool_end' }> => e.type === 'tool_end');

/** A file as the composer holds it once checked: named, typed and waiting to be sent. */
export function attach(name: string, bytes: Uint8Array): PendingAttachment {
  const c = checkAttachment(name, bytes);
  return { id: newAttachmentId(), name: c.name, mediaType: c.mediaType, bytes: c.bytes.length, data: c.bytes };
}

export { saveSettings };
