/**
 * A conversation as Markdown, for the user to keep or share: what each side
 * said, and every memory operation as a readable line.
 */
import type { ToolRecord, TranscriptEntry } from '../../shared/chat';

/** One memory operation as a line: what Claude did, to which memory, and whether it worked. */
export function memoryLine(r: ToolRecord): string {
  const target = r.newPath ? `\`${r.path}\` → \`${r.newPath}\`` : `\`${r.path}\``;
  const outcome = r.isError ? ` — failed: ${r.content.replace(/^Error: /, '').split('\n')[0]}` : '';
  return `> Memory: ${r.command} ${target}${outcome}`;
}

function entryMarkdown(e: TranscriptEntry): string {
  if (e.role === 'user') {
    // Attachments by name, type and size (their content stays in the vault); backticks keep a name from becoming Markdown.
    const files = (e.attachments ?? []).map((a) => `> Attached: \`${a.name.replace(/`/g, "'")}\` (${a.mediaType}, ${a.bytes} bytes)`);
    return [`## You`, ...(files.length ? [files.join('\n')] : []), e.text].join('\n\n');
  }
  const parts = ['## Claude'];
  if (e.tools.length) parts.push(e.tools.map(memoryLine).join('\n>\n'));
  if (e.text.trim()) parts.push(e.text);
  if (e.stopped) parts.push('_(stopped)_');
  if (e.error) parts.push(`_(error: ${e.error.message})_`);
  return parts.join('\n\n');
}

/** The whole conversation as Markdown: a title, then each message in order with its memory operations. */
export function conversationMarkdown(c: { title: string; created: number; transcript: TranscriptEntry[] }): string {
  const head = `# ${c.title.replace(/\s+/g, ' ').trim()}\n\n_Exported from Mnemo. Started ${new Date(c.created).toISOString().slice(0, 16).replace('T', ' ')} UTC._`;
  return [head, ...c.transcript.map(entryMarkdown)].join('\n\n') + '\n';
}

/** A file name for the export: the title with only safe characters, `.md` added. */
export function exportFileName(title: string): string {
  const base = title.replace(/[^\p{L}\p{N} ._-]+/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, 80).replace(/^\.+/, '');
  return `${base || 'conversation'}.md`;
}
