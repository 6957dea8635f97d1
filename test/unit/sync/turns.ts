/**
 * Conversation turns as the sync tests write and read them (chats2, chats2-arriving, attack-chats2, the Syncthing
 * end-to-end test).
 */
import type { StoredConversation } from '../../../electron/core/chat/conversations';

/** One exchange, as a turn saves it: the user's words and the reply, in the API history and the transcript. */
export const turn = (said: string) => (c: StoredConversation): StoredConversation => ({
  ...c,
  updated: Date.now(),
  turnStarts: [...(c.turnStarts ?? []), c.messages.length],
  messages: [...c.messages, { role: 'user', content: said }, { role: 'assistant', content: [{ type: 'text', text: `re: ${said}` }] }],
  transcript: [...c.transcript, { role: 'user', text: said, at: 1 }, { role: 'assistant', text: `re: ${said}`, at: 2, tools: [] }],
});

/** What the user said in a conversation, in order. */
export const said = (c: StoredConversation | undefined) => (c?.transcript ?? []).filter((e) => e.role === 'user').map((e) => e.text);
