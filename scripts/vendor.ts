/**
 * mediabunny ships inside the package: its own Node bundle (the file `require('mediabunny')` loads in node), copied
 * unmodified into dist/vendor by the build (tsup.config.ts). As a dependency it put @types/dom-webcodecs and
 * @types/dom-mediacapture-transform into every user's node_modules/@types, which TypeScript adds to each program of a
 * project that does not list `types`, and which do not compile there with `skipLibCheck: false`. Its types are needed
 * at build time only, so it is a devDependency; its license notice is in THIRD-PARTY-NOTICES.md
 * (scripts/third-party-notices.ts).
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const VENDORED_MEDIABUNNY = {
  /** The package's folder in this repository. */
  packageDir: join(ROOT, 'node_modules', 'mediabunny'),
  /** The file copied, in that folder: mediabunny's CommonJS build for node (its `exports`' `node.require`). */
  file: 'dist/bundles/mediabunny.node.cjs',
  /** Where the copy goes, in the build's output folder. */
  output: 'vendor/mediabunny.cjs',
};

/** Copy mediabunny's Node bundle into `outDir`, unchanged. */
export async function vendorMediabunny(outDir: string): Promise<void> {
  const to = join(outDir, VENDORED_MEDIABUNNY.output);
  await mkdir(dirname(to), { recursive: true });
  await copyFile(join(VENDORED_MEDIABUNNY.packageDir, VENDORED_MEDIABUNNY.file), to);
}
