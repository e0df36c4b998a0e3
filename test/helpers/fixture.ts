import { afterAll, afterEach, beforeEach } from 'vitest';

/** Closes or removes one thing a test made: a server, a client, a folder. */
export type Closer = () => unknown;

/**
 * The one teardown of the suite: call at a test file's top level, then `push` whatever must be closed. What a
 * test (or its beforeEach) pushes is closed after that test; what a beforeAll pushes, after the file. Each batch
 * is closed all at once, since closers do not depend on each other (a client and the server it talks to). `push`
 * has an array's name so a file's `closers.push(...)` lines read as they did.
 */
export function useCleanup(): { push(...closers: Closer[]): void } {
  const perTest: Closer[] = [];
  const perFile: Closer[] = [];
  let inTest = false;
  const closeAll = async (closers: Closer[]) => {
    await Promise.all(closers.splice(0).map((close) => close()));
  };
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await closeAll(perTest);
  });
  afterAll(() => closeAll(perFile));
  return { push: (...closers) => (inTest ? perTest : perFile).push(...closers) };
}
