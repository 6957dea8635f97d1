/**
 * Handlers for other apps' use of this memory: the channel's state, the
 * configurations to paste (built here, so the window cannot choose what they
 * run), copying one, the call log, and the user's decisions on changes other
 * apps wait to have approved.
 */
import { clientWidening } from '../../core/chat/settings-policy';
import { loadSettings } from '../../core/chat/settings-store';
import { forgetClient, knownClients, newClientAccess, setAccess } from '../../core/mcp/client-rules';
import { FIRST_PROJECT_ID, Projects } from '../../core/projects/store';
import { VaultError } from '../../core/vault/types';
import { projectConfigs } from '../channel-configs';
import type { ChannelHost } from '../channel-host';
import { requireConsent } from './consent';
import type { AppSession } from './session';
import type { HandlersFor } from './types';
import { m } from '../../core/i18n/message';

export function channelHandlers(s: AppSession, host: ChannelHost): HandlersFor<'channelStatus' | 'channelConfigs' | 'channelCopyConfig' | 'channelLog' | 'channelClients' | 'channelSetClientAccess' | 'channelForgetClient' | 'channelPending' | 'channelDecide'> {
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
    channelClients: async () => knownClients(s.unlocked().internal),
    channelSetClientAccess: async ({ client, access, passphrase }) => {
      const store = s.unlocked().internal;
      const known = (await knownClients(store)).find((c) => c.name === client);
      if (!known) throw new VaultError('NOT_FOUND', m('errors:apps.unknown'));
      // Narrowing applies at once; letting an app change memory is a weakening, allowed as any other is.
      const wider = clientWidening(client, known.access, access);
      if (wider.length) await requireConsent(s, wider, passphrase);
      return setAccess(store, client, access);
    },
    channelForgetClient: async ({ client, passphrase }) => {
      const vault = s.unlocked();
      const known = (await knownClients(vault.internal)).find((c) => c.name === client);
      if (!known) throw new VaultError('NOT_FOUND', 'No app of that name has connected to Mnemo.');
      // Forgotten, the app is new at its next connection: if new apps may change memory, forgetting one set to
      // view only lets it change memory, a weakening allowed as any other is.
      const wider = clientWidening(client, known.access, newClientAccess(await loadSettings(vault)));
      if (wider.length) await requireConsent(s, wider, passphrase);
      return forgetClient(vault.internal, client);
    },
    channelPending: async () => host.approvals.list(),
    channelDecide: async ({ id, allow }) => {
      if (!host.approvals.decide(id, allow)) throw new VaultError('NOT_FOUND', m('errors:apps.approvalGone'));
      return null;
    },
  };
}
