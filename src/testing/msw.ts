import type * as Msw from 'msw';

/** What `startMockServer()` says when msw, the optional peer dependency of `avatar-video/testing`, is not installed. */
export const MSW_MISSING = 'avatar-video/testing needs msw: npm install -D msw';

let loading: Promise<typeof Msw> | undefined;

/**
 * msw, loaded on first use: with `import()` in the ESM build and `require` in the CommonJS one (tsup.config.ts has
 * esbuild turn dynamic imports into requires there). Each format thus takes msw's own build of that format, which
 * Jest needs: its CommonJS mode refuses any `import()`, and its ESM mode cannot `require` the ESM-only packages
 * recent msw versions depend on. Loading on use, not at import, also lets an app import this module without msw,
 * and turns a missing msw into MSW_MISSING rather than a module-linking error.
 * msw's handlers are recognised by a `__kind` field rather than `instanceof`, so either build serves them.
 * @internal
 */
export function loadMsw(): Promise<typeof Msw> {
  loading ??= import('msw').catch((error: unknown) => {
    loading = undefined;
    throw explainMissingMsw(error);
  });
  return loading;
}

/**
 * MSW_MISSING (the original as its cause) when `error` says that msw itself cannot be found, by Node's `require`
 * ("Cannot find module 'msw'"), its `import()` ("Cannot find package 'msw'") or Jest's resolver; else `error`
 * unchanged, so a broken msw install (one of its own dependencies missing) keeps its own message.
 * @internal
 */
export function explainMissingMsw(error: unknown): unknown {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  const missing = (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && /^Cannot find (module|package) 'msw'/.test(message);
  return missing ? new Error(MSW_MISSING, { cause: error }) : error;
}
