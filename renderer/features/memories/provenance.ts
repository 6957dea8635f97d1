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
      return `${by.client} (MCP)`;
    case 'system':
      return 'Mnemo';
  }
}

/** The tree's short badge for a memory's last writer, or none when it is not known. */
export function writerBadge(by: Provenance | undefined): 'Claude' | 'You' | undefined {
  if (!by) return undefined;
  return by.kind === 'claude' ? 'Claude' : by.kind === 'user' || by.kind === 'restore' ? 'You' : undefined;
}
