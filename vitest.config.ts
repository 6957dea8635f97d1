import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Argon2id takes 64 MiB or more per derivation: keep the parallelism modest on 2 cores.
    maxWorkers: 2,
  },
});
