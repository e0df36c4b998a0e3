import { defineConfig } from 'tsup';

/** The command's own dependencies, bundled into dist/cli.js: see THIRD-PARTY-NOTICES.md. */
const CLI_DEPENDENCIES = ['commander', 'cli-progress', 'csv-parse'];

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
    },
    format: ['esm', 'cjs'],
    // `@internal` members (the transport the client hands down) stay out of the published types.
    dts: { compilerOptions: { stripInternal: true } },
    target: 'node20',
    platform: 'node',
    // No source maps: dist/*.js is not minified and marks each part with the source file it came from, so a stack
    // trace already points at readable code the user has. Maps could point only at sources the package does not ship
    // (with the sources inside, they were 65% of it).
    sourcemap: false,
    clean: true,
    splitting: false,
    // import.meta.url in the CommonJS build (internal/lazy.ts, internal/mediabunny.ts and the mock require from there).
    shims: true,
    // The CommonJS build turns `import()` into `require`: under Jest's CommonJS mode any `import()` fails, and a
    // CommonJS user should get a package's CommonJS build (testing/msw.ts).
    esbuildOptions(options, { format }) {
      if (format === 'cjs') options.supported = { ...options.supported, 'dynamic-import': false };
    },
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
    // The first build empties dist; this one must not remove what that one wrote.
    clean: false,
    // The mock (and msw, an optional peer) goes in a chunk loaded only by `avatar-video mock`.
    splitting: true,
    // A `require` for the bundled CommonJS packages (commander, cli-progress), which require node's own modules.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
  },
]);
