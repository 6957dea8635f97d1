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
                    <td>
                      {s.keys.map((k, i) => (
                        <span key={k}>
                          {i > 0 && <span className="or"> or </span>}
                          <Keys text={k} />
                        </span>
                      ))}
                    </td>
                    <td>{s.does}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </section>
      ))}
    </Modal>
  );
}

/** One way to press it: the keys as keys, a condition after them ("(outside a text box)") as words. */
function Keys({ text }: { text: string }) {
  const [, keys = text, when] = /^(.*?)(?: (\(.*\)))?$/.exec(text) ?? [];
  return (
    <>
      <kbd>{keys}</kbd>
      {when && ` ${when}`}
    </>
  );
}
