import { useTranslation } from 'react-i18next';
import { keysOf } from '../../lib/shortcuts';
import './Temporary.css';

/** What an empty chat says: who remembers what, and where it is kept; a temporary chat says that nothing of it is kept. */
export function Greeting({ temporary }: { temporary?: boolean | undefined }) {
  const { t } = useTranslation('chat');
  if (temporary) {
    return (
      <div className="greeting temporary-greeting">
        <h2>{t('greeting.temporaryTitle')}</h2>
        <p>{t('greeting.temporaryBody')}</p>
        <p>{t('greeting.temporaryMemory')}</p>
        <p className="hint">{t('greeting.temporaryHint', { keys: keysOf('newConversation') })}</p>
      </div>
    );
  }
  return (
    <div className="greeting">
      <h2>{t('greeting.title')}</h2>
      <p>{t('greeting.body')}</p>
      <p className="hint">{t('greeting.hint', { newKeys: keysOf('newConversation'), paletteKeys: keysOf('palette'), paneKeys: keysOf('memoryPane'), shortcutKeys: keysOf('shortcuts') })}</p>
    </div>
  );
}
