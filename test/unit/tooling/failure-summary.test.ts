import fs from 'node:fs/promises';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { playwrightFailures, playwrightTimings, vitestFailures, vitestTimings } from '../../failure-summary';

describe('the failure summary at the end of npm test', () => {
  it("reads the failed tests out of vitest's own JSON report, with their messages", async () => {
    // A real vitest run of a file with one passing and one failing test, reported as vitest.config.ts asks.
    // Inside the project, so that the file's `vitest` import resolves.
    await fs.mkdir('test-results', { recursive: true });
    const dir = await fs.mkdtemp(path.resolve('test-results', 'summary-'));
    try {
      await fs.writeFile(
        path.join(dir, 'two.test.ts'),
        "import { it, expect } from 'vitest';\nit('passes', () => expect(1).toBe(1));\nit('fails here', () => expect('got').toBe('wanted'));\n",
      );
      await fs.writeFile(path.join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.test.ts'] } };\n");
      const out = path.join(dir, 'report.json');
      const vitest = path.resolve('node_modules/vitest/vitest.mjs');
      await promisify(execFile)(process.execPath, [vitest, 'run', '--root', dir, '--reporter=json', `--outputFile=${out}`]).catch(() => undefined);
      const failures = vitestFailures(JSON.parse(await fs.readFile(out, 'utf8')));
      expect(failures.map((f) => f.title)).toEqual([expect.stringMatching(/two\.test\.ts › fails here$/)]);
      expect(failures[0]!.message).toContain("expected 'got' to be 'wanted'");
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("reads nested Playwright suites, failed specs only, with the file and line, and errors outside any test", () => {
    const report = {
      suites: [
        {
          title: 'a.spec.ts',
          file: 'a.spec.ts',
          specs: [
            { title: 'fine', line: 3, ok: true, tests: [{ results: [{ status: 'passed', errors: [] }] }] },
            { title: 'broken', line: 9, ok: false, tests: [{ results: [{ status: 'failed', errors: [{ message: '\u001b[31mExpected: 2\u001b[39m\nReceived: 3' }] }] }] },
          ],
          suites: [{ title: 'group', specs: [{ title: 'slow', line: 20, ok: false, tests: [{ results: [{ status: 'timedOut', errors: [] }] }] }] }],
        },
      ],
      errors: [{ message: 'worker crashed' }],
    };
    expect(playwrightFailures(report)).toEqual([
      { title: 'a.spec.ts:9 › broken', message: '\u001b[31mExpected: 2\u001b[39m\nReceived: 3' },
      { title: 'a.spec.ts:20 › slow', message: 'timedOut' },
      { title: 'outside any test', message: 'worker crashed' },
    ]);
  });

  it('reads each test\'s time and, from Playwright, its own limit (setTimeout included)', () => {
    const pw = {
      suites: [
        {
          file: 'b.spec.ts',
          specs: [
            { title: 'quick', line: 4, tests: [{ timeout: 90_000, results: [{ status: 'passed', duration: 2_000 }] }] },
            { title: 'long', line: 8, tests: [{ timeout: 240_000, results: [{ status: 'passed', duration: 100_000 }] }] },
          ],
        },
      ],
    };
    expect(playwrightTimings(pw)).toEqual([
      { title: 'b.spec.ts:4 › quick', ms: 2_000, limitMs: 90_000 },
      { title: 'b.spec.ts:8 › long', ms: 100_000, limitMs: 240_000 },
    ]);
    const vt = { testResults: [{ name: 'x.test.ts', assertionResults: [{ fullName: 'a b', duration: 12 }] }] };
    expect(vitestTimings(vt)).toEqual([{ title: 'x.test.ts › a b', ms: 12, limitMs: undefined }]);
  });
});
