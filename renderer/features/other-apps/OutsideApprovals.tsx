import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { OutsideApproval } from '../../../electron/shared/channel';
import { ErrorText } from '../../components/ErrorText';
import { ApprovalCard } from '../chat/ApprovalCard';
import { ApiError, call, messageOf, on } from '../../lib/api';
import { formatTime } from '../../lib/format';

/**
 * Changes other apps (MCP clients, `mnemo memory`) wait to have approved, above
 * every section so they are seen from any tab: the same card as Claude's in
 * the chat, naming the app and the project. Main sends the whole list whenever
 * it changes (asked, decided here, timed out, withdrawn, ended by a lock), so a card goes
 * once it no longer waits, and a reloaded page asks for the list again.
 */
export function OutsideApprovals() {
  const { t } = useTranslation('settings');
  const [pending, setPending] = useState<OutsideApproval[]>([]);
  const [error, setError] = useState<string>();

  useEffect(() => {
    let heard = false;
    const off = on('channelApprovals', (e) => {
      heard = true;
      setPending(e.pending);
    });
    // What waits already (a page loaded while an app waits); an event heard meanwhile is newer.
    call('channelPending').then(
      (list) => heard || setPending(list),
      () => undefined,
    );
    return off;
  }, []);

  const decide = async (id: string, allow: boolean) => {
    setError(undefined);
    try {
      await call('channelDecide', { id, allow });
    } catch (err) {
      // It timed out or the vault locked a moment ago: the list main sends says so by dropping the card.
      if (!(err instanceof ApiError && err.code === 'NOT_FOUND')) setError(messageOf(err));
    }
    setPending((list) => list.filter((a) => a.id !== id));
  };

  if (pending.length === 0 && !error) return null;
  return (
    <section className="outside-approvals" aria-label={t('otherApps.outside.label')}>
      {pending.map((a) => (
        <ApprovalCard key={a.id} who={a.client} approval={{ type: 'approval', ...a }} onDecide={(allow) => void decide(a.id, allow)}>
          <p className="hint">
            <Trans t={t} i18nKey={a.via === 'mcp' ? 'otherApps.outside.viaMcp' : 'otherApps.outside.viaCommand'} values={{ project: a.projectName, time: formatTime(a.expires) }} components={[<bdi />]} />
          </p>
        </ApprovalCard>
      ))}
      <ErrorText message={error} />
    </section>
  );
}
