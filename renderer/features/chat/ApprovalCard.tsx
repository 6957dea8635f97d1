import { useEffect, useRef, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ChatEvent } from '../../../electron/shared/chat';
import { Diff } from '../../components/Diff';
import { MemoryPath } from './MemoryPath';

type Approval = Extract<ChatEvent, { type: 'approval' }>;

/** What the card asks, by who asks (Claude, or another app named in the sentence) and what the change does. */
const ASKS = {
  claude: { create: 'approval.claudeCreate', change: 'approval.claudeChange', rename: 'approval.claudeRename', delete: 'approval.claudeDelete', deleteAll: 'approval.claudeDeleteAll' },
  app: { create: 'approval.appCreate', change: 'approval.appChange', rename: 'approval.appRename', delete: 'approval.appDelete', deleteAll: 'approval.appDeleteAll' },
} as const;

/**
 * A held memory change and what it does: the diff of an edit, the old and new path of a rename, what a delete
 * removes. `who` asks (Claude in the chat when absent; another app's name for a change asked over the local
 * channel), and `children` add what else the user should know (which project, until when it waits).
 */
export function ApprovalCard({ approval: a, onDecide, who, children }: { approval: Approval; onDecide: (allow: boolean) => void; who?: string | undefined; children?: ReactNode }) {
  const { t } = useTranslation('chat');
  const removes = a.change?.removes;
  const card = useRef<HTMLDivElement>(null);
  // A held change waits for the user: bring focus (and a screen reader) to it, so it is decided by keyboard without hunting.
  useEffect(() => card.current?.focus(), []);
  const asks = ASKS[who === undefined ? 'claude' : 'app'];
  const many = a.command === 'delete' && removes !== undefined && removes.files.length !== 1;
  const kind = a.command === 'rename' ? 'rename' : a.command === 'delete' ? (many ? 'deleteAll' : 'delete') : a.command === 'create' ? 'create' : 'change';
  return (
    <div className="approval" role="group" aria-label={who === undefined ? t('approval.label', { command: a.command, path: a.path }) : t('approval.labelFor', { command: a.command, path: a.path, who })} ref={card} tabIndex={-1}>
      <p>
        <Trans
          t={t}
          i18nKey={asks[kind]}
          {...(many ? { count: removes!.files.length } : {})}
          values={{ path: a.path, newPath: a.newPath ?? '?', who: who ?? '' }}
          components={[<MemoryPath code path={a.path} />, <MemoryPath code path={a.newPath ?? '?'} />, <bdi />]}
        />
      </p>
      {children}
      {a.change?.diff ? (
        <Diff before={a.change.diff.before} after={a.change.diff.after} label={t('approval.diff', { command: a.command, path: a.path })} />
      ) : (
        a.preview !== undefined && (
          <pre className="preview" dir="auto">
            {a.preview}
          </pre>
        )
      )}
      {removes &&
        (removes.text !== undefined ? (
          <pre className="preview" dir="auto" aria-label={t('approval.deletedText', { path: a.path })}>
            {removes.text}
          </pre>
        ) : (
          removes.files.length > 0 && (
            <ul aria-label={t('approval.deletedFiles', { path: a.path })}>
              {removes.files.map((f) => (
                <li key={f}>
                  <MemoryPath code path={f} />
                </li>
              ))}
            </ul>
          )
        ))}
      <button onClick={() => onDecide(true)}>{t('approval.approve')}</button>
      <button onClick={() => onDecide(false)}>{t('approval.deny')}</button>
    </div>
  );
}
