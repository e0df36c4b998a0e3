import { createRequire } from 'node:module';
import { once } from './once.js';

export { once };

// Dependencies resolve from this file's location, as a static import would. tsup's shims give the CommonJS build
// an import.meta.url.
const load = createRequire(import.meta.url);

/**
 * A dependency loaded at its first use rather than at import: undici and zod took most of a cold
 * `import('avatar-video')` (bench/import.ts), and an app pays for them only once it sends or parses.
 * `require`, not `import()`: it is synchronous, and under Jest's CommonJS mode the CommonJS build may not
 * `import()` at all. Each package loaded so ships CommonJS, so both builds share one copy of it.
 */
export function lazyRequire<T>(name: string): () => T {
  return once(() => load(name) as T);
}
