/**
 * `npm test`: every phase in order (typecheck, lint and the build at once,
 * then unit, e2e, and last package with the real-Syncthing test at once),
 * stopping at the first that fails with its exit code, and ending with one
 * line of how long each phase took, so a phase that grows is seen the day it
 * does. `npm run test:deep` runs the same with MNEMO_DEEP=1 (the long attack
 * loops at full size).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { failureSummary, REPORTS, timingSummary } from './failure-summary';

// Phases run in order; the scripts of one phase run at once. The first three do not depend on one another
// and are each mostly one core's work, so on two cores they share the time; e2e and packaging use the build.
const PHASES: [name: string, script: string][][] = [
  [
    ['typecheck', 'typecheck'],
    ['lint', 'lint'],
    ['build', 'build'],
  ],
  [['unit', 'test:unit']],
  [['e2e', 'test:e2e:built']],
  // Packaging is mostly one core's work; the Syncthing test mostly waits for two syncthing processes on loopback.
  [
    ['package', 'test:package:built'],
    ['syncthing', 'test:syncthing'],
  ],
];

function run(script: string): Promise<number> {
  return new Promise((resolve) => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const child = spawn(npm, ['run', '--silent', script], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

// Reports of an earlier run must not be taken for this one's.
for (const file of Object.values(REPORTS)) fs.rmSync(file, { force: true });

const times: string[] = [];
const started = Date.now();
let failed: { name: string; code: number } | undefined;
for (const phase of PHASES) {
  const t0 = Date.now();
  const codes = await Promise.all(
    phase.map(async ([name, script]) => {
      const code = await run(script);
      times.push(`${name} ${Math.round((Date.now() - t0) / 1000)}s`);
      return { name, code };
    }),
  );
  if (phase.length > 1) times.push(`(together ${Math.round((Date.now() - t0) / 1000)}s)`);
  failed = codes.find((c) => c.code !== 0);
  if (failed) break;
}
const line = `phases: ${times.join(' · ')} · total ${Math.round((Date.now() - started) / 1000)}s${process.env.MNEMO_DEEP === '1' ? ' (deep)' : ''}`;
const timings = Object.keys(REPORTS).flatMap(timingSummary);
const summary = failed ? failureSummary(failed.name) : [];
console.log(`\n${[...timings, ...summary, line].join('\n')}${failed ? `\nFAILED in ${failed.name} (exit ${failed.code})` : ''}`);
process.exitCode = failed?.code ?? 0;
