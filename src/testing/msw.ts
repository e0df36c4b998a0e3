import { createRequire } from 'node:module';
import type * as Msw from 'msw';

/** What importing `avatar-video/testing` says when msw, its optional peer dependency, is not installed. */
export const MSW_MISSING = 'avatar-video/testing needs msw: npm install -D msw';

// This file's own location. tsup's shims give the CommonJS build an import.meta.url; __filename is the
// fallback should they be turned off (it comes second: under `node -e` a global __filename is '[eval]').
const HERE = typeof import.meta.url === 'string' ? import.meta.url : __filename;

/**
 * msw, loaded with `require` rather than a static `import`: an ESM import of a missing package fails
 * while linking, before any code of ours could say what to install. msw ships CommonJS, and its handlers
 * are recognised by a `__kind` field rather than `instanceof`, so they work in a user's ESM setupServer.
 * @param from Where to resolve msw from; tests point it at a folder without msw.
 * @internal
 */
export function loadMsw(from: string = HERE): typeof Msw {
  try {
    return createRequire(from)('msw') as typeof Msw;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // Only msw itself missing; a broken msw install keeps its own error.
    if (code === 'MODULE_NOT_FOUND' && message.startsWith("Cannot find module 'msw'")) throw new Error(MSW_MISSING, { cause: error });
    throw error;
  }
}
