/**
 * A child process for client.test.ts: connects to the app's channel as `mnemo memory` would, makes one call,
 * closes, and exits by itself with the call's answer on stdout. Arguments: state folder, vault id.
 */
import { connectApp } from '../../../electron/core/mcp/channel-client';

const [stateDir, vaultId] = process.argv.slice(2) as [string, string];
const backend = await connectApp({ stateDir, vaultId, via: 'cli', client: 'child', readOnly: false });
if (!backend) throw new Error('no app');
const answer = await backend.call({ command: 'view', path: '/memories' });
await backend.close();
process.stdout.write(JSON.stringify(answer));
