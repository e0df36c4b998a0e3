/**
 * Compiles test/types/*.ts with tsc. Those files hold the public API's type contract as `@ts-expect-error`
 * lines (create params are one-of, Video's fields are checked, option names): a line that stops being an
 * error is reported as an unused directive, and this test prints it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('public types', () => {
  it('test/types compiles: every @ts-expect-error line is an error, every other line is not', async () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const output = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', join(root, 'test/types')], { cwd: root }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout || String(error),
    );
    expect(output).toBe('');
  });
});
