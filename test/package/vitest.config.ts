import { defineConfig } from 'vitest/config';

// The packaged-layout tests run only through `npm run test:package`, after the layout is written.
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
});
