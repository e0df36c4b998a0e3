import { defineConfig } from 'tsup';

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
    sourcemap: true,
    clean: true,
    splitting: false,
    // import.meta.url in the CommonJS build (internal/mediabunny.ts and testing/render-output.ts require from there).
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
    sourcemap: true,
    // The first build empties dist; this one must not remove what that one wrote.
    clean: false,
    // The mock (and msw, an optional peer) goes in a chunk loaded only by `avatar-video mock`.
    splitting: true,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
