import { useTranslation } from 'react-i18next';
import { Modal } from '../../components/Modal';
import { SHORTCUTS, type Shortcut, type ShortcutGroup, type ShortcutId } from '../../lib/shortcuts';
import './ShortcutSheet.css';

/** The sheet's groups, in order: each one's element id (from the English group name) and heading. */
const GROUPS = [
  ['Anywhere', 'shortcuts.group.anywhere'],
  ['Chat', 'shortcuts.group.chat'],
  ['Memories', 'shortcuts.group.memories'],
  ['Lists, tabs and dialogs', 'shortcuts.group.lists'],
] as const satisfies ReadonlyArray<readonly [ShortcutGroup, string]>;

/** What each shortcut does, as the sheet says it in the window's language (the table's `does` is its English note). */
const DOES = {
  palette: 'shortcuts.action.palette',
  shortcuts: 'shortcuts.action.shortcuts',
  tabChat: 'shortcuts.action.tabChat',
  tabMemories: 'shortcuts.action.tabMemories',
  tabSettings: 'shortcuts.action.tabSettings',
  memoryPane: 'shortcuts.action.memoryPane',
  lock: 'shortcuts.action.lock',
  skip: 'shortcuts.action.skip',
  newConversation: 'shortcuts.action.newConversation',
  send: 'shortcuts.action.send',
  newline: 'shortcuts.action.newline',
  stop: 'shortcuts.action.stop',
  editSend: 'shortcuts.action.editSend',
  editCancel: 'shortcuts.action.editCancel',
  treeMove: 'shortcuts.action.treeMove',
  treeFolder: 'shortcuts.action.treeFolder',
  treeOpen: 'shortcuts.action.treeOpen',
  treeRename: 'shortcuts.action.treeRename',
  treeDelete: 'shortcuts.action.treeDelete',
  save: 'shortcuts.action.save',
  find: 'shortcuts.action.find',
  undo: 'shortcuts.action.undo',
  indent: 'shortcuts.action.indent',
  leaveEditor: 'shortcuts.action.leaveEditor',
  tabs: 'shortcuts.action.tabs',
  splitter: 'shortcuts.action.splitter',
  'palette-move': 'shortcuts.action.paletteMove',
  close: 'shortcuts.action.close',
} as const satisfies Record<ShortcutId, string>;

/** Where a key works only somewhere, as the table writes it after the keys → the catalog's words for it. */
const WHEN = { '(outside a text box)': 'shortcuts.outsideTextBox' } as const;

/**
 * Every shortcut of the app (Ctrl+/ or ?), from the one table the key handlers use. Key names are
 * keys, the same in every language (`translate="no"`); what they do is said in the window's language.
 */
export function ShortcutSheet({ onDismiss }: { onDismiss: () => void }) {
  const { t } = useTranslation('palette');
  return (
    <Modal labelledBy="shortcuts-title" className="shortcut-sheet" initialFocus="[data-dismiss]" onDismiss={onDismiss}>
      <div className="sheet-head">
        <h2 id="shortcuts-title">{t('shortcuts.title')}</h2>
        <button type="button" data-dismiss>
          {t('shortcuts.close')}
        </button>
      </div>
      <p className="hint">{t('shortcuts.mac')}</p>
      {GROUPS.map(([group, heading]) => (
        <section key={group} aria-labelledby={`shortcuts-${group.replace(/\W+/g, '-')}`}>
          <h3 id={`shortcuts-${group.replace(/\W+/g, '-')}`}>{t(heading)}</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('shortcuts.keys')}</th>
                <th scope="col">{t('shortcuts.does')}</th>
              </tr>
            </thead>
            <tbody>
              {(SHORTCUTS as readonly Shortcut[])
                .filter((s) => s.group === group)
                .map((s) => (
                  <tr key={s.id}>
                    <td className="keys">
                      {s.keys.map((k, i) => (
                        <span key={k}>
                          {i > 0 && <span className="or"> {t('shortcuts.or')} </span>}
                          <kbd translate="no">{keysOf(k).keys}</kbd>
                        </span>
                      ))}
                    </td>
                    <td>
                      {t(DOES[s.id as ShortcutId])}
                      {/* When a key works only somewhere ("? (outside a text box)"), that is said here: the keys stay on one line. */}
                      {s.keys
                        .map((k) => keysOf(k))
                        .filter((k) => k.when)
                        .map((k) => (
                          <span key={k.keys} className="or">
                            {' '}
                            {k.when! in WHEN ? t(WHEN[k.when as keyof typeof WHEN], { keys: k.keys }) : `(${k.keys} ${k.when!.slice(1, -1)})`}
                          </span>
                        ))}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </section>
      ))}
    </Modal>
  );
}

/** One way to press it: the keys, and a condition written after them ("(outside a text box)"). */
function keysOf(text: string): { keys: string; when?: string } {
  const [, keys = text, when] = /^(.*?)(?: (\(.*\)))?$/.exec(text) ?? [];
  return when ? { keys, when } : { keys };
}
