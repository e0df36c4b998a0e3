import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** An ESM resolve hook (for `module.register`) refusing 'msw' with the error Node gives for a missing package. */
const ESM_HOOK = `export async function resolve(specifier, context, next) {
  if (specifier !== 'msw') return next(specifier, context);
  const message = "Cannot find package 'msw' imported from " + context.parentURL;
  throw Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}`;

/**
 * Writes a CommonJS preload (for `node --require`) that makes both `require('msw')` and `import('msw')` fail the
 * way they do when msw is not installed, and returns its path.
 */
export async function writeHideMsw(folder: string): Promise<string> {
  const path = join(folder, 'hide-msw.cjs');
  await writeFile(
    path,
    `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'msw') throw Object.assign(new Error("Cannot find module 'msw'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
Module.register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(ESM_HOOK)}`)});`,
  );
  return path;
}
