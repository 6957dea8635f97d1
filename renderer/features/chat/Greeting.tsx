import { keysOf } from '../../lib/shortcuts';
import './Temporary.css';

/** What an empty chat says: who remembers what, and where it is kept; a temporary chat says that nothing of it is kept. */
export function Greeting({ temporary }: { temporary?: boolean | undefined }) {
  if (temporary) {
    return (
      <div className="greeting temporary-greeting">
        <h2>Temporary chat</h2>
        <p>Nothing of this chat is kept. It is not saved in the vault, and it is gone when you close it, lock Mnemo or quit; files you attach are held only until then.</p>
        <p>Claude can read your memory here but cannot change it: nothing is written to memory from this chat.</p>
        <p className="hint">For a conversation that is kept, start a new conversation ({keysOf('newConversation')}).</p>
      </div>
    );
  }
  return (
    <div className="greeting">
      <h2>Start a conversation</h2>
      <p>Claude keeps notes about you and your work in memory files, encrypted in the vault on this computer. You see every memory Claude reads or writes here in the chat, and you can open, edit or delete any of them under Memories.</p>
      <p className="hint">
        Enter sends; Shift+Enter starts a new line. {keysOf('newConversation')} starts a new conversation; {keysOf('palette')} goes to any conversation, memory or setting; {keysOf('memoryPane')} shows memory beside the chat; {keysOf('shortcuts')} lists every shortcut.
      </p>
    </div>
  );
}
