import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes a CommonJS preload (for `node --require`) that makes `require('msw')` fail the way it does when msw is
 * not installed, and returns its path.
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
};`,
  );
  return path;
}
