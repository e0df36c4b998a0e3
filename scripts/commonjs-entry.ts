/**
 * Makes the CommonJS entry behave as `require('openai')` does: `require('avatar-video')` returns the client
 * class itself, carrying `.AvatarVideo`, `.default` and every other named export as properties, and
 * `index.d.cts` says so (`export =` of the class merged with a namespace of the named exports).
 *
 * Run after tsup (`npm run build` does): `tsx scripts/commonjs-entry.ts [outDir]`. tsup has no hook that
 * runs after its declaration build, and its own `cjsInterop` handles a module with a default export only.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CLASS = 'AvatarVideo';
const MARK = '/* avatar-video: CommonJS entry */';

/** Rewrite `index.cjs` and `index.d.cts` in `outDir`. Running it twice changes nothing more. */
export async function makeCommonJSEntry(outDir: string): Promise<void> {
  await rewrite(join(outDir, 'index.cjs'), commonJSRuntime);
  await rewrite(join(outDir, 'index.d.cts'), commonJSTypes);
}

async function rewrite(path: string, transform: (text: string) => string): Promise<void> {
  const text = await readFile(path, 'utf8');
  if (text.includes(MARK)) return;
  await writeFile(path, transform(text));
}

/** esbuild's module.exports holds getters for the named exports: copy them onto the class, then export it. */
export function commonJSRuntime(code: string): string {
  const reassign = `${MARK}\nmodule.exports = Object.assign(module.exports.${CLASS}, module.exports);\n`;
  const map = code.lastIndexOf('//# sourceMappingURL=');
  // Before the source map comment, which must stay last; the lines above keep their mappings.
  return map === -1 ? `${code}\n${reassign}` : `${code.slice(0, map)}${reassign}${code.slice(map)}`;
}

/** rollup-plugin-dts ends the bundle with one `export { ... };` listing everything; move that list into a namespace. */
export function commonJSTypes(types: string): string {
  const statements = [...types.matchAll(/^export\s*\{([^}]*)\};?\s*$/gm)];
  const stray = types.match(/^export\s+(?!\{)/m);
  if (statements.length !== 1 || stray) {
    throw new Error(
      `index.d.cts does not end with one export list as expected (found ${statements.length}${stray ? ' and a stray export' : ''})`,
    );
  }
  const [statement, list = ''] = statements[0] as RegExpMatchArray;
  if (!new RegExp(`\\b${CLASS} as default\\b`).test(list)) throw new Error(`index.d.cts does not export ${CLASS} as default`);
  const namespace = [
    MARK,
    `// require('avatar-video') is the ${CLASS} class; its named exports (the class again, default, errors, types) are its properties.`,
    `declare namespace ${CLASS} {`,
    `  export { ${list.trim()} };`,
    '}',
    `export = ${CLASS};`,
    '',
  ].join('\n');
  return types.replace(statement, namespace);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await makeCommonJSEntry(resolve(process.argv[2] ?? 'dist'));
}
