import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APIUserAbortError } from '../../src/index.js';
import { abortError } from '../../src/internal/abort.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('abortError', () => {
  it('says what was aborted and keeps the signal’s reason as the cause', () => {
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    const error = abortError(controller.signal, 'The batch');
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.message).toBe('The batch was aborted.');
    expect(error.cause).toBe(reason);
  });

  it('is the one place an APIUserAbortError is built: elsewhere only the CLI’s Ctrl-C, which is a reason, not an error of a signal', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const building = files.filter((file) => readFileSync(join(SRC, file), 'utf8').includes('new APIUserAbortError('));
    expect(building.map((file) => file.replaceAll('\\', '/')).sort()).toEqual(['cli/run.ts', 'internal/abort.ts']);
  });
});
