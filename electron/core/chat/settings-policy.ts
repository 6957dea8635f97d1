/**
 * Which settings changes weaken a protection (DESIGN.md §9b): the window may
 * strengthen any of them on its own, but main asks for the passphrase or its
 * own confirmation before one of these is made.
 */
import type { ClientAccess } from '../../shared/channel';
import type { GuardMode, McpAccess, Settings, SettingsPatch } from '../../shared/settings';

/** How strongly each secret-guard mode protects: a lower rank is weaker. */
const GUARD_RANK: Record<GuardMode, number> = { block: 2, redact: 1, allow: 0 };
const GUARD_WORDS: Record<GuardMode, string> = { block: 'block', redact: 'store redacted', allow: 'store as they are' };
/** How much other apps may do through the app's local channel: a higher rank lets them do more. */
const MCP_RANK: Record<McpAccess, number> = { off: 0, 'read-only': 1, 'read-write': 2 };
const MCP_WORDS: Record<McpAccess, string> = { off: 'no access', 'read-only': 'view your memories', 'read-write': 'view and change your memories' };

/**
 * The protections `patch` would weaken, each said as what it does (for main's
 * own dialog), or an empty list when it keeps or strengthens every one.
 */
export function weakenings(current: Settings, patch: SettingsPatch): string[] {
  const out: string[] = [];
  const lock = patch.autoLockMinutes;
  // 0 is "never": from there any idle time is stronger; to there, or to a longer time, is weaker.
  if (lock !== undefined && current.autoLockMinutes !== 0 && (lock === 0 || lock > current.autoLockMinutes)) {
    out.push(lock === 0 ? 'Turn auto-lock off (the vault would stay unlocked while you are away)' : `Lock after ${lock} idle minutes instead of ${current.autoLockMinutes}`);
  }
  if (patch.approvalMode === false && current.approvalMode) out.push('Turn approval mode off (Claude would change memory without asking you)');
  if (patch.guardMode !== undefined && GUARD_RANK[patch.guardMode] < GUARD_RANK[current.guardMode]) {
    out.push(`Let Claude ${GUARD_WORDS[patch.guardMode]} what looks like a secret, instead of ${GUARD_WORDS[current.guardMode] === 'block' ? 'blocking it' : 'storing it redacted'}`);
  }
  if (patch.historyDepth !== undefined && patch.historyDepth < current.historyDepth) {
    out.push(`Keep ${patch.historyDepth} version${patch.historyDepth === 1 ? '' : 's'} of each memory instead of ${current.historyDepth} (older ones are deleted)`);
  }
  // Each round is another request a hostile or broken API server can draw from one message (issue: 5,240 in 240 s).
  if (patch.maxToolRounds !== undefined && patch.maxToolRounds > current.maxToolRounds) {
    out.push(`Let one message run up to ${patch.maxToolRounds} tool rounds instead of ${current.maxToolRounds}`);
  }
  // The channel lets any program running as you reach memory without the passphrase while Mnemo is unlocked.
  if (patch.mcpAccess !== undefined && MCP_RANK[patch.mcpAccess] > MCP_RANK[current.mcpAccess]) {
    out.push(`Let other apps (MCP clients such as Claude Desktop, Claude Code or Cursor) ${MCP_WORDS[patch.mcpAccess]} while Mnemo is unlocked, instead of ${current.mcpAccess === 'off' ? 'having no access' : 'only viewing them'}`);
  }
  if (patch.mcpNewClientsReadOnly === false && current.mcpNewClientsReadOnly) out.push('Let apps that connect for the first time change your memories at once, instead of only viewing them');
  return out;
}

/** The protection widening one app's access would weaken (for main's own dialog), or none when it narrows or keeps it. */
export function clientWidening(client: string, from: ClientAccess, to: ClientAccess): string[] {
  return from === 'read-only' && to === 'read-write' ? [`Let the app named “${client}” change your memories, not only view them`] : [];
}
