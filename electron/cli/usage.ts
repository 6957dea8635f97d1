/**
 * The `mnemo --help` and `mnemo mcp --help` texts, in the CLI's language (electron/cli/i18n.ts). Kept apart so
 * usage errors and `--help` print the same thing. Commands, options and placeholders (NAME, DIR) are code and
 * stay as they are; only the descriptions are translated.
 */
import { helpRows, tc } from './i18n';

/** The `mnemo --help` text. */
export function usage(): string {
  const c = (k: Parameters<typeof tc>[0]) => tc(k);
  return `mnemo — ${c('cli:help.main.title')}

${c('cli:help.main.usage')}

${c('cli:help.main.commandsTitle')}
${helpRows([
  ['init', c('cli:help.main.commands.init')],
  ['memory', c('cli:help.main.commands.memory')],
  ['mcp', c('cli:help.main.commands.mcp')],
  ['ls [PATH]', c('cli:help.main.commands.ls')],
  ['cat PATH', c('cli:help.main.commands.cat')],
  ['cat PATH --version N', c('cli:help.main.commands.catVersion')],
  ['history PATH', c('cli:help.main.commands.history')],
  ['verify', c('cli:help.main.commands.verify')],
  ['verify --wait SECONDS', c('cli:help.main.commands.verifyWait')],
  ['passwd', c('cli:help.main.commands.passwd')],
  ['rotate', c('cli:help.main.commands.rotate')],
  ['recovery-key', c('cli:help.main.commands.recoveryKey')],
  ['accept-rollback', c('cli:help.main.commands.acceptRollback')],
  ['export DIR --plaintext', c('cli:help.main.commands.export')],
  ['import DIR [--overwrite]', c('cli:help.main.commands.import')],
  ['backup DIR', c('cli:help.main.commands.backup')],
  ['chat', c('cli:help.main.commands.chat')],
  ['projects', c('cli:help.main.commands.projects')],
  ['projects create NAME', c('cli:help.main.commands.projectsCreate')],
  ['projects rename OLD NEW', c('cli:help.main.commands.projectsRename')],
  ['projects delete NAME --yes', c('cli:help.main.commands.projectsDelete')],
  ['projects restore NAME', c('cli:help.main.commands.projectsRestore')],
  ['conversations', c('cli:help.main.commands.conversations')],
  ['models [--refresh]', c('cli:help.main.commands.models')],
  ['review', c('cli:help.main.commands.review')],
  ['devices', c('cli:help.main.commands.devices')],
  ['devices rename ID NAME', c('cli:help.main.commands.devicesRename')],
  ['devices forget ID --yes', c('cli:help.main.commands.devicesForget')],
  ['export-conversation ID [FILE]', c('cli:help.main.commands.exportConversation')],
])}
${c('cli:help.main.optionsTitle')}
${helpRows([
  ['--project NAME', c('cli:help.main.options.project')],
  ['--read-only', c('cli:help.main.options.readOnly')],
  ['--vault DIR', c('cli:help.main.options.vault')],
  ['--passphrase-file FILE', c('cli:help.main.options.passphraseFile')],
  ['--recovery-key-file FILE', c('cli:help.main.options.recoveryKeyFile')],
  ['--kdf-ops N, --kdf-mem MIB', c('cli:help.main.options.kdf')],
  ['--allow-weak', c('cli:help.main.options.allowWeak')],
  ['-h, --help', c('cli:help.main.options.help')],
])}
${c('cli:help.main.exit')}
`;
}

/** The `mnemo mcp --help` text. */
export function mcpUsage(): string {
  const c = (k: Parameters<typeof tc>[0]) => tc(k);
  return `${c('cli:help.mcp.title')}

${c('cli:help.mcp.about')}

${c('cli:help.mcp.app')}

${c('cli:help.mcp.usage')}

${c('cli:help.mcp.optionsTitle')}
${helpRows([
  ['--project NAME', c('cli:help.mcp.options.project')],
  ['--project-id ID', c('cli:help.mcp.options.projectId')],
  ['--read-only', c('cli:help.mcp.options.readOnly')],
  ['--vault DIR', c('cli:help.mcp.options.vault')],
  ['--passphrase-file FILE', c('cli:help.mcp.options.passphraseFile')],
  ['-h, --help', c('cli:help.mcp.options.help')],
])}
${c('cli:help.mcp.desktop')}
  {
    "mcpServers": {
      "mnemo": { "command": "mnemo", "args": ["mcp"] }
    }
  }

${c('cli:help.mcp.code')}
  claude mcp add --scope user mnemo -- mnemo mcp

${c('cli:help.mcp.inApp')}
`;
}
