/**
 * Which settings changes weaken a protection (DESIGN.md §9b): the window may
 * strengthen any of them on its own, but main asks for the passphrase or its
 * own confirmation before one of these is made.
 */
import type { ClientAccess } from '../../shared/channel';
import type { GuardMode, McpAccess, Settings, SettingsPatch } from '../../shared/settings';
import { m, type LocalMessage } from '../i18n/message';

/** How strongly each secret-guard mode protects: a lower rank is weaker. */
const GUARD_RANK: Record<GuardMode, number> = { block: 2, redact: 1, allow: 0 };
/** How much other apps may do through the app's local channel: a higher rank lets them do more. */
const MCP_RANK: Record<McpAccess, number> = { off: 0, 'read-only': 1, 'read-write': 2 };

/**
 * The protections `patch` would weaken, each said as what it does (for main's
 * own dialog), or an empty list when it keeps or strengthens every one.
 */
export function weakenings(current: Settings, patch: SettingsPatch): LocalMessage[] {
  const out: LocalMessage[] = [];
  const lock = patch.autoLockMinutes;
  // 0 is "never": from there any idle time is stronger; to there, or to a longer time, is weaker.
  if (lock !== undefined && current.autoLockMinutes !== 0 && (lock === 0 || lock > current.autoLockMinutes)) {
    out.push(lock === 0 ? m('errors:change.autoLockOff') : m('errors:change.autoLockLonger', { count: lock, current: current.autoLockMinutes }));
  }
  if (patch.approvalMode === false && current.approvalMode) out.push(m('errors:change.approvalOff'));
  if (patch.guardMode !== undefined && GUARD_RANK[patch.guardMode] < GUARD_RANK[current.guardMode]) {
    if (patch.guardMode === 'redact') out.push(m('errors:change.guard.redactNotBlock'));
    else out.push(current.guardMode === 'block' ? m('errors:change.guard.allowNotBlock') : m('errors:change.guard.allowNotRedact'));
  }
  if (patch.historyDepth !== undefined && patch.historyDepth < current.historyDepth) {
    out.push(m('errors:change.historyDepth', { count: patch.historyDepth, current: current.historyDepth }));
  }
  // Each round is another request a hostile or broken API server can draw from one message (issue: 5,240 in 240 s).
  if (patch.maxToolRounds !== undefined && patch.maxToolRounds > current.maxToolRounds) {
    out.push(m('errors:change.toolRounds', { count: patch.maxToolRounds, current: current.maxToolRounds }));
  }
  // The channel lets any program running as you reach memory without the passphrase while Mnemo is unlocked.
  if (patch.mcpAccess !== undefined && MCP_RANK[patch.mcpAccess] > MCP_RANK[current.mcpAccess]) {
    if (patch.mcpAccess === 'read-only') out.push(m('errors:change.mcp.viewNotOff'));
    else out.push(current.mcpAccess === 'off' ? m('errors:change.mcp.changeNotOff') : m('errors:change.mcp.changeNotView'));
  }
  if (patch.mcpNewClientsReadOnly === false && current.mcpNewClientsReadOnly) out.push(m('errors:change.newAppsChange'));
  return out;
}

/** The protection widening one app's access would weaken (for main's own dialog), or none when it narrows or keeps it. */
export function clientWidening(client: string, from: ClientAccess, to: ClientAccess): LocalMessage[] {
  return from === 'read-only' && to === 'read-write' ? [m('errors:change.appChange', { client })] : [];
}
