import { useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { VaultFolder } from '../../../electron/shared/ipc-values';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf } from '../../lib/api';
import { flushDrafts } from '../../lib/drafts';

/**
 * Which folder the vault is in (its name only: the window never learns a host
 * path), with "Open a vault…" — main shows its own folder picker — and, while
 * another folder is in use, "Use the default folder". `onMoved`: the folder
 * changed, so the app asks main again what to show (unlock, or create).
 * A cancelled picker changes nothing; a refused folder is said here.
 */
export function VaultFolderChoice({ onMoved }: { onMoved: () => void }) {
  const { t } = useTranslation('unlock');
  const [folder, setFolder] = useState<VaultFolder>();
  const [error, setError] = useState<string>();
  // Not a disabled button while main asks: focus would fall to the page. A second press meanwhile is ignored.
  const busy = useRef(false);
  useEffect(() => {
    call('vaultFolder').then(setFolder, (e: unknown) => setError(messageOf(e)));
  }, []);
  const act = async (change: () => Promise<boolean>) => {
    if (busy.current) return;
    busy.current = true;
    setError(undefined);
    try {
      // A switch locks an unlocked vault first: the last keystrokes still waiting to reach main go first, so it keeps them.
      await flushDrafts();
      if (await change()) onMoved();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      busy.current = false;
    }
  };
  const open = () =>
    act(async () => {
      const r = await call('vaultOpenFolder');
      setFolder(r.folder);
      return r.outcome !== 'cancelled';
    });
  const useDefault = () =>
    act(async () => {
      setFolder(await call('vaultUseDefaultFolder'));
      return true;
    });
  if (!folder) return <ErrorText message={error} />;
  return (
    <div role="group" className="vault-folder" aria-label={t('folder.label')}>
      <p>
        {/* The folder's name is the user's: isolated in the sentence, so a right-to-left name keeps its place. */}
        {folder.isDefault ? t('folder.default') : <Trans t={t} i18nKey="folder.chosen" values={{ name: folder.name }} components={[<bdi />]} />}
        {folder.fromStart && ` ${t('folder.fromStart')}`}
      </p>
      <div className="row">
        <button type="button" onClick={() => void open()}>
          {t('folder.open')}
        </button>
        {!folder.isDefault && (
          <button type="button" onClick={() => void useDefault()}>
            {t('folder.useDefault')}
          </button>
        )}
      </div>
      <ErrorText message={error} />
    </div>
  );
}
