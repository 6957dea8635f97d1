/** Long conversations written straight through the core conversations API, instead of running every turn. */
import { Conversations } from '../../electron/core/chat/conversations';
import type { TranscriptEntry } from '../../electron/shared/chat';
import type { VaultApi } from '../../electron/core/vault/types';

/** About 60 lines of code, as a reply that shows code would hold. */
export const CODE_60 = Array.from({ length: 60 }, (_, i) => `  const value${i} = compute(${i}, "item ${i}"); // step ${i} of the work`).join('\n');

/** The text of earlier reply `i`: a sentence, a 60-line code block (every other one unlabelled), and a closing line naming it (and `tag`). */
export function seededReply(i: number, tag = ''): string {
  return `Here is version ${i} of the function.\n\n\`\`\`${i % 2 ? '' : 'ts'}\nfunction work${i}() {\n${CODE_60}\n}\n\`\`\`\n\nThat was reply ${i}.${tag ? ` ${tag}` : ''}`;
}

/**
 * Stores a conversation titled `title` holding `replies` exchanges, each reply ending with `tag`; returns its id.
 * With `apiHistory`, also the API messages a chat keeps beside its transcript (one user and one assistant message
 * an exchange, and where each turn starts), as every real conversation has: what main reads when it opens one.
 */
export async function seedConversation(vault: VaultApi, title: string, replies: number, tag = '', opts: { apiHistory?: boolean } = {}): Promise<string> {
  const conversations = new Conversations(vault);
  const c = await conversations.create();
  const transcript: TranscriptEntry[] = [];
  const at = Date.now() - 2 * replies * 1000;
  for (let i = 0; i < replies; i++) {
    transcript.push({ role: 'user', text: `Show me version ${i}.`, at: at + 2000 * i });
    transcript.push({ role: 'assistant', text: seededReply(i, tag), at: at + 2000 * i + 1000, tools: [] });
  }
  const history = opts.apiHistory
    ? {
        messages: transcript.map((e) => (e.role === 'user' ? { role: 'user' as const, content: e.text } : { role: 'assistant' as const, content: [{ type: 'text' as const, text: e.text }] })),
        turnStarts: Array.from({ length: replies }, (_, i) => 2 * i),
      }
    : {};
  await conversations.update(c.id, (x) => ({ ...x, title, transcript, ...history }));
  return c.id;
}
