/**
 * The failed tests of a phase, in a few lines each, for the end of `npm test`: CI keeps only the tail of a
 * run's output, where the reporters' own failure listings may already have scrolled away. Read from the JSON
 * report each runner writes beside its usual output (vitest.config.ts, playwright.config.ts).
 */
import fs from 'node:fs';

export const REPORTS: Record<string, string> = {
  unit: 'test-results/unit.json',
  e2e: 'test-results/e2e.json',
};

const LINES_PER_FAILURE = 6;
const MAX_FAILURES = 10;

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

export interface Failure {
  title: string;
  message: string;
}

interface VitestReport {
  testResults?: { name?: string; message?: string; assertionResults?: { status?: string; fullName?: string; failureMessages?: string[] }[] }[];
}

interface PlaywrightSuite {
  title?: string;
  file?: string;
  specs?: { title?: string; line?: number; ok?: boolean; tests?: { results?: { status?: string; errors?: { message?: string }[] }[] }[] }[];
  suites?: PlaywrightSuite[];
}
interface PlaywrightReport {
  suites?: PlaywrightSuite[];
  errors?: { message?: string }[];
}

export function vitestFailures(report: VitestReport): Failure[] {
  const out: Failure[] = [];
  for (const file of report.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failed) out.push({ title: `${file.name ?? '?'} › ${a.fullName ?? '?'}`, message: (a.failureMessages ?? []).join('\n') });
    // A file that failed outside any test (an import error, a failing hook).
    if (failed.length === 0 && file.message) out.push({ title: file.name ?? '?', message: file.message });
  }
  return out;
}

export function playwrightFailures(report: PlaywrightReport): Failure[] {
  const out: Failure[] = [];
  const walk = (suite: PlaywrightSuite, file: string | undefined) => {
    const at = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      if (spec.ok !== false) continue;
      const results = (spec.tests ?? []).flatMap((t) => t.results ?? []);
      const failed = results.filter((r) => r.status !== 'passed' && r.status !== 'skipped');
      const message = failed.flatMap((r) => (r.errors ?? []).map((e) => e.message ?? '')).join('\n') || failed.map((r) => r.status).join(', ');
      out.push({ title: `${at ?? '?'}:${spec.line ?? '?'} › ${spec.title ?? '?'}`, message });
    }
    for (const child of suite.suites ?? []) walk(child, at);
  };
  for (const suite of report.suites ?? []) walk(suite, undefined);
  for (const e of report.errors ?? []) out.push({ title: 'outside any test', message: e.message ?? '' });
  return out;
}

/** The summary lines for `phase`, or none when it has no report (or an unreadable one: the runner's own output stands). */
export function failureSummary(phase: string): string[] {
  const file = REPORTS[phase];
  if (!file) return [];
  let report: unknown;
  try {
    report = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const failures = phase === 'unit' ? vitestFailures(report as VitestReport) : playwrightFailures(report as PlaywrightReport);
  if (failures.length === 0) return [];
  const lines = [`${failures.length} failed in ${phase}:`];
  for (const f of failures.slice(0, MAX_FAILURES)) {
    lines.push(`  ✘ ${f.title}`);
    const body = plain(f.message)
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l.trim() !== '');
    for (const l of body.slice(0, LINES_PER_FAILURE)) lines.push(`      ${l}`);
  }
  if (failures.length > MAX_FAILURES) lines.push(`  … and ${failures.length - MAX_FAILURES} more`);
  return lines;
}
