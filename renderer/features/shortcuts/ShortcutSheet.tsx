import { Modal } from '../../components/Modal';
import { SHORTCUTS, type Shortcut, type ShortcutGroup } from '../../lib/shortcuts';
import './ShortcutSheet.css';

const GROUPS: ShortcutGroup[] = ['Anywhere', 'Chat', 'Memories', 'Lists, tabs and dialogs'];

/** Every shortcut of the app (Ctrl+/ or ?), from the one table the key handlers use. */
export function ShortcutSheet({ onDismiss }: { onDismiss: () => void }) {
  return (
    <Modal labelledBy="shortcuts-title" className="shortcut-sheet" initialFocus="[data-dismiss]" onDismiss={onDismiss}>
      <div className="sheet-head">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <button type="button" data-dismiss>
          Close
        </button>
      </div>
      <p className="hint">On a Mac, Cmd works where Ctrl is shown.</p>
      {GROUPS.map((group) => (
        <section key={group} aria-labelledby={`shortcuts-${group.replace(/\W+/g, '-')}`}>
          <h3 id={`shortcuts-${group.replace(/\W+/g, '-')}`}>{group}</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Keys</th>
                <th scope="col">What they do</th>
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
                          {i > 0 && <span className="or"> or </span>}
                          <kbd>{keysOf(k).keys}</kbd>
                        </span>
                      ))}
                    </td>
                    <td>
                      {s.does}
                      {/* When a key works only somewhere ("? (outside a text box)"), that is said here: the keys stay on one line. */}
                      {s.keys.map((k) => keysOf(k)).filter((k) => k.when).map((k) => <span key={k.keys} className="or">{` (${k.keys} ${k.when!.slice(1, -1)})`}</span>)}
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
