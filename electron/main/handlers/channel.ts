/**
 * Handlers for other apps' use of this memory: the channel's state, the
 * configurations to paste (built here, so the window cannot choose what they
 * run), copying one, the call log, and the user's decisions on changes other
 * apps wait to have approved.
 */
import { FIRST_PROJECT_ID, Projects } from '../../core/projects/store';
import { VaultError } from '../../core/vault/types';
import { projectConfigs } from '../channel-configs';
import type { ChannelHost } from '../channel-host';
import type { AppSession } from './session';
import type { HandlersFor } from './types';

export function channelHandlers(s: AppSession, host: ChannelHost): HandlersFor<'channelStatus' | 'channelConfigs' | 'channelCopyConfig' | 'channelLog' | 'channelPending' | 'channelDecide'> {
  return {
    channelStatus: async () => (s.unlocked(), host.status()),
    channelConfigs: async ({ readOnly }) => (await new Projects(s.unlocked()).list()).map((p) => projectConfigs(p, p.id === FIRST_PROJECT_ID, readOnly)),
    channelCopyConfig: async ({ project, target, readOnly }) => {
      const p = await new Projects(s.unlocked()).require(project);
      if (!s.ctx.clipboard) return { copied: false };
      await s.ctx.clipboard.copyPlain(projectConfigs(p, p.id === FIRST_PROJECT_ID, readOnly).configs[target]);
      return { copied: true };
    },
    channelLog: async () => host.calls(),
    channelPending: async () => host.approvals.list(),
    channelDecide: async ({ id, allow }) => {
      if (!host.approvals.decide(id, allow)) throw new VaultError('NOT_FOUND', 'That change is no longer waiting for approval (it was decided, timed out, withdrawn by the app that asked, or the vault locked).');
      return null;
    },
  };
}
