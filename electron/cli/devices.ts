/**
 * `mnemo devices`: the computers that write to this vault, one a line (id, name, last write, and what is true of it:
 * `this`, `forgotten`, `behind`); `mnemo devices rename ID NAME`; `mnemo devices forget ID --yes` (core/vault/devices.ts).
 */
import { deviceNameOf, type DeviceEntry } from '../core/vault/devices';
import { CommandUsageError, writeLine, type Flags } from './commands';
import { Exit, type CliCommandContext } from './context';
import { tc } from './i18n';
import { field } from './projects';

/** Checks `devices` arguments before the vault is opened. */
export function checkDevicesArgs(args: string[], flags: Flags): void {
  const [sub, ...rest] = args;
  const ok = sub === undefined || (sub === 'rename' && rest.length === 2) || (sub === 'forget' && rest.length === 1);
  if (!ok) throw new CommandUsageError(tc('cli:args.devices'));
  if (sub === 'forget' && !flags.yes) throw new CommandUsageError(tc('cli:args.devicesForgetYes'));
}


/** What is true of a computer, as words a script can match: this, forgotten, behind (or -). */
const marks = (d: DeviceEntry) => [d.current && 'this', d.forgotten && 'forgotten', d.behind && 'behind'].filter(Boolean).join(',') || '-';

export async function devicesCommand(ctx: CliCommandContext, _flags: Flags): Promise<number> {
  const [sub, id, name] = ctx.argv;
  if (sub === 'rename') {
    await ctx.vault.renameDevice(id!, name!);
    ctx.stderr.write(`${tc('cli:devices.renamed', { name: deviceNameOf(name!) })}\n`);
    return Exit.OK;
  }
  if (sub === 'forget') {
    await ctx.vault.forgetDevice(id!);
    ctx.stderr.write(`${tc('cli:devices.forgotten')}\n`);
    return Exit.OK;
  }
  const list = await ctx.vault.devices();
  if (!list.length) ctx.stderr.write(`${tc('cli:devices.onlyThis')}\n`);
  for (const d of list) await writeLine(ctx.stdout, `${d.id}\t${field(d.name) || '-'}\t${new Date(d.lastWrite).toISOString()}\t${marks(d)}`);
  return Exit.OK;
}
