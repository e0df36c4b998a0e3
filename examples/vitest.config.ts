import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`../src/${path}`, import.meta.url));

/**
 * For examples/*.test.ts only (`npm run examples` runs it): the root config covers test/ alone, so
 * nothing runs twice. The package name points at the sources here, as tsconfig `paths` does for tsx.
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^avatar-video\/testing$/, replacement: source('testing/index.ts') },
      { find: /^avatar-video\/media$/, replacement: source('media/index.ts') },
      { find: /^avatar-video$/, replacement: source('index.ts') },
    ],
  },
  test: {
    include: ['examples/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
