import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ModelList } from '../../../electron/shared/projects';
import { ModelListbox } from '../../components/ModelListbox';
import { call } from '../../lib/api';

/**
 * The model of the open conversation, beside the message box: "Default" (the
 * model in Settings, named) or any model the API listed, with its context
 * window and price tier. The list and the default are read again each time
 * the chat is shown, so a change in Settings is seen here.
 */
export function ConversationModel({ model, active, onChange }: { model: string | undefined; active: boolean; onChange: (model: string | null) => void }) {
  const { t } = useTranslation('chat');
  const [list, setList] = useState<ModelList>();
  const [fallback, setFallback] = useState<string>();
  useEffect(() => {
    if (!active) return;
    let live = true;
    // Without a key or offline there is no list: the box still offers Default and the conversation's own model.
    call('modelsList').then((l) => live && setList(l), () => undefined);
    call('settingsGet').then((s) => live && setFallback(s.model), () => undefined);
    return () => void (live = false);
  }, [active]);
  return <ModelListbox compactBox label={t('model.conversation')} value={model ?? null} models={list?.models ?? []} defaultModel={fallback ?? t('model.settingsModel')} listLoaded={(list?.fetched ?? 0) > 0} onChange={onChange} />;
}
