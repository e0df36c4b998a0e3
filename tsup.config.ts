import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import { nodeImports } from './scripts/node-imports.js';
import { VENDORED_MEDIABUNNY, vendorMediabunny } from './scripts/vendor.js';

/** The command's own dependencies, bundled into dist/cli.js: see THIRD-PARTY-NOTICES.md. */
const CLI_DEPENDENCIES = ['commander', 'cli-progress', 'csv-parse', '@modelcontextprotocol/sdk'];

/**
 * What the built code requires mediabunny by: the copy of its Node bundle in the output folder (scripts/vendor.ts),
 * relative to the built file; `toOutDir` leads from the built file's folder to the output folder. One file, so one
 * copy of mediabunny whichever entry loads it. The sources, which see no such constant, load the `mediabunny`
 * package (src/build-constants.d.ts).
 */
const vendoredMediabunny = (toOutDir: './' | '../'): Record<string, string> => ({
  __VENDORED_MEDIABUNNY__: JSON.stringify(`${toOutDir}${VENDORED_MEDIABUNNY.output}`),
});

/**
 * The sources whose classes users compare or pass between entries: the error classes (`instanceof`) and `toFile`'s
 * `NamedUpload`. An entry other than the main one takes them from the main entry, imported by its name and left
 * external, rather than bundling a copy of its own.
 */
const SHARED_WITH_MAIN = new Set(['errors.ts', 'uploads.ts'].map((file) => resolve('src', file)));

/** esbuild plugin: an import of a `SHARED_WITH_MAIN` source becomes an import of `avatar-video`, which exports its names. */
const importSharedFromMain: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'import-shared-from-main',
  setup(build) {
    build.onResolve({ filter: /\/(errors|uploads)\.js$/ }, ({ path, resolveDir }) =>
      SHARED_WITH_MAIN.has(resolve(resolveDir, path.replace(/\.js$/, '.ts'))) ? { path: 'avatar-video', external: true } : undefined,
    );
  },
};

/**
 * esbuild plugin for the command: its `mock` loads the package's own avatar-video/testing build (dist/testing/index.js,
 * next to dist/cli.js and its chunks) rather than a second copy of the mock and the msw bundled into it.
 */
const importTestingEntry: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'import-testing-entry',
  setup(build) {
    const testing = resolve('src/testing/index.ts');
    build.onResolve({ filter: /\/testing\/index\.js$/ }, ({ path, resolveDir }) =>
      resolve(resolveDir, path.replace(/\.js$/, '.ts')) === testing ? { path: './testing/index.js', external: true } : undefined,
    );
  },
};

/**
 * esbuild plugin of the builds that run outside Node (the web entry, avatar-video/webhooks): it fails the build if
 * the entry or a chunk imports Node's modules or undici. The web entry reaches the runtime through its own platform
 * (src/web/platform.ts, and `#platform` under the browser condition: package.json's `imports`), so nothing of Node is
 * there to import.
 */
const webPure = (build: string): NonNullable<Options['esbuildPlugins']>[number] => ({
  name: 'web-pure',
  setup(esbuild) {
    esbuild.onEnd(({ outputFiles = [] }) => {
      const reached = outputFiles.flatMap((file) => nodeImports(file.text).map((name) => `${name} in ${file.path}`));
      if (reached.length > 0) throw new Error(`the ${build} build imports Node's modules or undici: ${reached.join(', ')}`);
    });
  },
});

/** The library's entries (ESM and CommonJS, with declarations): one config each, as each sits at its own depth. */
const library: Options = {
  format: ['esm', 'cjs'],
  // `@internal` members (the transport the client hands down) stay out of the published types.
  dts: { compilerOptions: { stripInternal: true } },
  target: 'node20',
  platform: 'node',
  // No source maps: dist/*.js is not minified and marks each part with the source file it came from, so a stack
  // trace already points at readable code the user has. Maps could point only at sources the package does not ship
  // (with the sources inside, they were 65% of it).
  sourcemap: false,
  splitting: false,
  // import.meta.url in the CommonJS build (internal/lazy.ts, internal/mediabunny.ts and the mock require from there).
  shims: true,
  // The CommonJS build turns `import()` into `require`: under Jest's CommonJS mode any `import()` fails, and a
  // CommonJS user should get a package's CommonJS build (testing/msw.ts).
  esbuildOptions(options, { format }) {
    if (format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
  },
};

export default defineConfig(({ outDir = 'dist' }): Options[] => [
  {
    ...library,
    entry: { index: 'src/index.ts' },
    define: vendoredMediabunny('./'),
    // This build empties the output folder (before it builds); the others must not remove what it wrote.
    clean: true,
    onSuccess: () => vendorMediabunny(outDir),
  },
  { ...library, entry: { 'testing/index': 'src/testing/index.ts' }, define: vendoredMediabunny('../'), clean: false },
  // avatar-video/bullmq imports the main entry by its name, left external: one copy of the error classes and of the
  // client's types. bullmq itself, an optional peer, is imported for its types only.
  { ...library, entry: { 'bullmq/index': 'src/bullmq/index.ts' }, external: ['avatar-video'], clean: false },
  // avatar-video/media bundles the helpers' code (the main entry has it too, for the client's own checks) but takes
  // the error classes and toFile's class from the main entry, as avatar-video/bullmq does.
  {
    ...library,
    entry: { 'media/index': 'src/media/index.ts' },
    define: vendoredMediabunny('../'),
    external: ['avatar-video'],
    esbuildPlugins: [importSharedFromMain],
    clean: false,
  },
  // avatar-video/web, also what `avatar-video` resolves to under the workerd, worker, edge-light and browser
  // conditions: ESM for any runtime. `#platform` is the web platform here (the browser condition); zod is left to the
  // user's bundler (a dependency), imported only for an answer the schemas' fast path does not take, and mediabunny's
  // ESM build is a chunk of its own, imported by the first MP4/MOV probed: both land in lazy chunks of a user's bundle.
  {
    entry: { 'web/index': 'src/web/index.ts' },
    format: ['esm'],
    dts: { compilerOptions: { stripInternal: true } },
    target: 'es2022',
    // 'browser' honours package.json's `browser` maps (mediabunny's drops its node:fs part).
    platform: 'browser',
    esbuildOptions(options) {
      // mediabunny's chunk beside the entry, rather than among the command's chunks.
      options.chunkNames = 'web/[name]-[hash]';
    },
    sourcemap: false,
    splitting: true,
    noExternal: ['form-data-encoder'],
    esbuildPlugins: [webPure('web')],
    clean: false,
  },
  // avatar-video/proxy: web-standard code only (no `node:` module, no undici), for Workers, Edge, Bun and Deno as much
  // as Node; its one error class is the main entry's, imported by its name as avatar-video/media does.
  {
    ...library,
    entry: { 'proxy/index': 'src/proxy/index.ts' },
    external: ['avatar-video'],
    esbuildPlugins: [importSharedFromMain],
    clean: false,
  },
  // avatar-video/webhooks: verification for any runtime (Workers, Edge, Node, Bun, Deno), so no `node:` module in
  // its output (or the build fails); its error class extends the main entry's, imported by its name as
  // avatar-video/proxy does. standardwebhooks, a dependency, stays external.
  {
    ...library,
    entry: { 'webhooks/index': 'src/webhooks/index.ts' },
    external: ['avatar-video'],
    esbuildPlugins: [importSharedFromMain, webPure('avatar-video/webhooks')],
    clean: false,
  },
  // avatar-video/ai-sdk: the main entry by its name, left external, as avatar-video/media takes it; the media probe
  // that sorts a call's inputs is bundled as there. `ai` and `@ai-sdk/*` are imported for their types only.
  {
    ...library,
    entry: { 'ai-sdk/index': 'src/ai-sdk/index.ts' },
    define: vendoredMediabunny('../'),
    external: ['avatar-video'],
    esbuildPlugins: [importSharedFromMain],
    clean: false,
  },
  // The `avatar-video` command: ESM only, no declarations, and the shebang on this entry alone.
  {
    entry: { cli: 'src/cli/index.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    // The command's own dependencies go inside it (devDependencies, so a library user does not install them);
    // their licenses ship in THIRD-PARTY-NOTICES.md. The library's dependencies stay external, installed once.
    noExternal: CLI_DEPENDENCIES,
    clean: false,
    // `avatar-video mock` imports the testing entry (which bundles msw), only when run. Every chunk is in the output
    // folder itself.
    splitting: true,
    esbuildPlugins: [importTestingEntry],
    define: vendoredMediabunny('./'),
    // A `require` for the bundled CommonJS packages (commander, cli-progress), which require node's own modules.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
  },
]);
