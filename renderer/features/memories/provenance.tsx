import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { Provenance } from '../../../electron/shared/ipc-values';
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

/** An MCP client as a writer: "Claude Code (MCP)". The name is the client's own (cleaned when it was recorded), isolated for right-to-left scripts. */
export function AppName({ client }: { client: string }) {
  const { t } = useTranslation('memories');
  return <Trans t={t} i18nKey="writer.app" values={{ client }} components={[<bdi />]} />;
}

/** Who wrote a version, in words: "Claude in “Trip”, turn 2", "You", "Restored from version 3"…; a conversation's title isolated. */
export function Writer({ by, titles }: { by: Provenance | undefined; titles: Map<string, string> }) {
  const { t } = useTranslation('memories');
  if (!by) return <>{t('writer.unknown')}</>;
  switch (by.kind) {
    case 'claude': {
      const title = by.conversationId ? titles.get(by.conversationId) : undefined;
      if (title) return <Trans t={t} i18nKey={by.turn ? 'writer.claudeInTurn' : 'writer.claudeIn'} values={{ title, turn: by.turn }} components={[<bdi />]} />;
      if (by.conversationId) return <>{by.turn ? t('writer.claudeDeletedConversationTurn', { turn: by.turn }) : t('writer.claudeDeletedConversation')}</>;
      return <>{by.turn ? t('writer.claudeTurn', { turn: by.turn }) : 'Claude'}</>;
    }
    case 'user':
      return <>{t('writer.you')}</>;
    case 'import':
      return <>{t('writer.import')}</>;
    case 'restore':
      return <>{by.fromVersion ? t('writer.restoredFrom', { version: by.fromVersion }) : t('writer.restored')}</>;
    case 'cli':
      return <>{t('writer.cli')}</>;
    case 'mcp':
      return <AppName client={by.client} />;
    case 'system':
      return <>Mnemo</>;
  }
}

/** Who made a change to review, as the review list and the tree say it: "Claude", "a script", "Cursor (MCP)". */
export function ChangeWriter({ by }: { by: Provenance }) {
  const { t } = useTranslation('memories');
  if (by.kind === 'claude') return <>Claude</>;
  if (by.kind === 'cli') return <>{t('writer.script')}</>;
  if (by.kind === 'mcp') return <AppName client={by.client} />;
  return <>{t('writer.another')}</>;
}

/** The most characters of a client name the tree's badge shows; the whole name is in its title and description. */
const BADGE_NAME_CHARS = 20;

/** The tree's short badge for a memory's last writer: its look, and for an app its name (whole, and cut short for the badge). */
export interface WriterBadge {
  tone: 'claude' | 'user' | 'mcp';
  /** The app's whole name ("Claude Code"): said as "Last changed by Claude Code (MCP)". */
  client?: string;
  /** The app's name as the badge shows it, cut short with "…". */
  short?: string;
}

/** The tree's short badge for a memory's last writer, or none when it is not known (or not worth a badge). */
export function writerBadge(by: Provenance | undefined): WriterBadge | undefined {
  if (!by) return undefined;
  switch (by.kind) {
    case 'claude':
      return { tone: 'claude' };
    case 'user':
    case 'restore':
      return { tone: 'user' };
    case 'mcp': {
      const chars = [...by.client];
      const short = chars.length > BADGE_NAME_CHARS ? `${chars.slice(0, BADGE_NAME_CHARS - 1).join('')}…` : by.client;
      return { tone: 'mcp', client: by.client, short };
    }
    default:
      return undefined;
  }
}
