import { afterAll, beforeAll, beforeEach } from 'vitest';

/**
 * One fixture per test file: opened before the first test, reset before each,
 * closed after the last. Returns a getter, since the value exists only once
 * `beforeAll` has run.
 */
export function sharedFixture<T extends { close(): Promise<void> }>(open: () => Promise<T>, reset: (t: T) => Promise<void>): () => T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await open();
  });
  afterAll(async () => {
    await value?.close();
  });
  beforeEach(async () => {
    await reset(value!);
  });
  return () => value!;
}
