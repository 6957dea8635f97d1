/**
 * The failed tests of a phase, in a few lines each, for the end of `npm test`: CI keeps only the tail of a
 * run's output, where the reporters' own failure listings may already have scrolled away. Read from the JSON
 * report each runner writes beside its usual output (vitest.config.ts, playwright.config.ts).
 */
import fs from 'node:fs';

export const REPORTS: Record<string, string> = {
  unit: 'test-results/unit.json',
  e2e: 'test-results/e2e.json',
  syncthing: 'test-results/syncthing.json',
};

/** The phases whose report vitest writes (the others: Playwright). */
const VITEST = new Set(['unit', 'syncthing']);

const LINES_PER_FAILURE = 6;
const MAX_FAILURES = 10;

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

export interface Failure {
  title: string;
  message: string;
}

interface VitestReport {
  testResults?: { name?: string; message?: string; assertionResults?: { status?: string; fullName?: string; failureMessages?: string[]; duration?: number }[] }[];
}

interface PlaywrightSuite {
  title?: string;
  file?: string;
  specs?: { title?: string; line?: number; ok?: boolean; tests?: { timeout?: number; results?: { status?: string; duration?: number; errors?: { message?: string }[] }[] }[] }[];
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

function readReport(phase: string): unknown {
  const file = REPORTS[phase];
  if (!file) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The summary lines for `phase`, or none when it has no report (or an unreadable one: the runner's own output stands). */
export function failureSummary(phase: string): string[] {
  const report = readReport(phase);
  if (!report) return [];
  const failures = VITEST.has(phase) ? vitestFailures(report as VitestReport) : playwrightFailures(report as PlaywrightReport);
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

export interface Timing {
  title: string;
  ms: number;
  /** The test's own time limit where the report gives it (Playwright does, with any `test.setTimeout`; vitest does not). */
  limitMs: number | undefined;
}

export function vitestTimings(report: VitestReport): Timing[] {
  return (report.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? []).map((a) => ({ title: `${file.name ?? '?'} › ${a.fullName ?? '?'}`, ms: a.duration ?? 0, limitMs: undefined })),
  );
}

export function playwrightTimings(report: PlaywrightReport): Timing[] {
  const out: Timing[] = [];
  const walk = (suite: PlaywrightSuite, file: string | undefined) => {
    const at = suite.file ?? file;
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests ?? [])
        for (const r of t.results ?? []) out.push({ title: `${at ?? '?'}:${spec.line ?? '?'} › ${spec.title ?? '?'}`, ms: r.duration ?? 0, limitMs: t.timeout });
    for (const child of suite.suites ?? []) walk(child, at);
  };
  for (const suite of report.suites ?? []) walk(suite, undefined);
  return out;
}

const SLOWEST = 3;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/**
 * The slowest tests of a phase, and every test that took more than a third of its own limit (issue 22: a test
 * that close to its limit fails on a loaded machine), so a test that grows is seen the day it does.
 */
export function timingSummary(phase: string): string[] {
  const report = readReport(phase);
  if (!report) return [];
  const all = (VITEST.has(phase) ? vitestTimings(report as VitestReport) : playwrightTimings(report as PlaywrightReport)).sort((a, b) => b.ms - a.ms);
  if (all.length === 0) return [];
  const label = (t: Timing) => `${seconds(t.ms)}${t.limitMs ? ` of ${seconds(t.limitMs)}` : ''} ${t.title}`;
  const lines = [`slowest in ${phase}: ${all.slice(0, SLOWEST).map(label).join(' · ')}`];
  const near = all.filter((t) => t.limitMs !== undefined && t.limitMs > 0 && t.ms > t.limitMs / 3);
  if (near.length) lines.push(`over a third of their limit in ${phase}: ${near.map(label).join(' · ')}`);
  return lines;
}
