import fs from 'node:fs/promises';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { playwrightFailures, vitestFailures } from '../../failure-summary';

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
});
