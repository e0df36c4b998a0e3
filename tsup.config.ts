import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'bullmq/index': 'src/bullmq/index.ts',
    },
    // avatar-video/bullmq imports the main entry by name: one copy of the error classes (instanceof holds across
    // entries) and of the client's types. bullmq itself, an optional peer, is imported for its types only.
    external: ['avatar-video'],
    format: ['esm', 'cjs'],
    // `@internal` members (the transport the client hands down) stay out of the published types.
    dts: { compilerOptions: { stripInternal: true } },
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: true,
    splitting: false,
    // import.meta.url in the CommonJS build (testing/msw.ts resolves msw from its own location).
    shims: true,
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
