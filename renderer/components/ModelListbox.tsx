import { useTranslation } from 'react-i18next';
import type { ModelInfo } from '../../electron/shared/projects';
import { modelChoices } from '../lib/model-choices';
import { Listbox } from './Listbox';

interface Props {
  /** The accessible name ("Model", "Model for this conversation"). */
  label: string;
  /** The chosen model; null: the default (only with `defaultModel`). */
  value: string | null;
  models: readonly ModelInfo[];
  /** When given, the first choice is "Default", meaning this model from Settings. */
  defaultModel?: string | undefined;
  /** A list is loaded to say "not offered" against: a chosen model missing from it is marked. */
  listLoaded: boolean;
  onChange: (value: string | null) => void;
  describedBy?: string | undefined;
  /** Smaller, for beside the message box. */
  compactBox?: boolean;
}

/** A model choice (see Listbox): each model with its context window and price tier. */
export function ModelListbox({ label, value, models, defaultModel, listLoaded, onChange, describedBy, compactBox }: Props) {
  // Drawn again on a language switch: the choices' words ("Default", "200K context") are the window's.
  useTranslation('chat');
  return <Listbox label={label} value={value} choices={modelChoices(models, value, { defaultModel, listLoaded })} onChange={onChange} describedBy={describedBy} compactBox={compactBox} />;
}
