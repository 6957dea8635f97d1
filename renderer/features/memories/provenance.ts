import { useEffect, useState } from 'react';
import type { Provenance } from '../../../electron/shared/ipc';
import { call } from '../../lib/api';

/** Conversation titles by id, for naming the conversation Claude wrote a version in. */
export function useConversationTitles(): Map<string, string> {
  const [titles, setTitles] = useState(new Map<string, string>());
  useEffect(() => {
    call('chatList').then(
      (list) => setTitles(new Map(list.map((c) => [c.id, c.title]))),
      // Without titles a version still says it was Claude's; nothing to report.
      () => undefined,
    );
  }, []);
  return titles;
}

/** Who wrote a version, in words: "Claude in “Trip”, turn 2", "You", "Restored from version 3"… */
export function describeWriter(by: Provenance | undefined, titles: Map<string, string>): string {
  if (!by) return 'Unknown writer';
  switch (by.kind) {
    case 'claude': {
      const title = by.conversationId ? titles.get(by.conversationId) : undefined;
      const where = title ? ` in “${title}”` : by.conversationId ? ' in a deleted conversation' : '';
      return `Claude${where}${by.turn ? `, turn ${by.turn}` : ''}`;
    }
    case 'user':
      return 'You';
    case 'import':
      return 'Import';
    case 'restore':
      return by.fromVersion ? `Restored from version ${by.fromVersion}` : 'Restored';
    case 'cli':
      return 'Command line';
    case 'mcp':
      return mcpWriter(by.client);
    case 'system':
      return 'Mnemo';
  }
}

/** An MCP client as a writer: "Claude Code (MCP)". The name is the client's own, cleaned when it was recorded. */
export function mcpWriter(client: string): string {
  return `${client} (MCP)`;
}

/** The most characters of a client name the tree's badge shows; the whole name is in its title and description. */
const BADGE_NAME_CHARS = 20;

/** The tree's short badge for a memory's last writer: its text, its look, and who it names in words. */
export interface WriterBadge {
  text: string;
  tone: 'claude' | 'user' | 'mcp';
  /** "Claude", "you", "Claude Code (MCP)": said as "Last changed by …". */
  who: string;
}

/** The tree's short badge for a memory's last writer, or none when it is not known (or not worth a badge). */
export function writerBadge(by: Provenance | undefined): WriterBadge | undefined {
  if (!by) return undefined;
  switch (by.kind) {
    case 'claude':
      return { text: 'Claude', tone: 'claude', who: 'Claude' };
    case 'user':
    case 'restore':
      return { text: 'You', tone: 'user', who: 'you' };
    case 'mcp': {
      const chars = [...by.client];
      const name = chars.length > BADGE_NAME_CHARS ? `${chars.slice(0, BADGE_NAME_CHARS - 1).join('')}…` : by.client;
      return { text: mcpWriter(name), tone: 'mcp', who: mcpWriter(by.client) };
    }
    default:
      return undefined;
  }
}
