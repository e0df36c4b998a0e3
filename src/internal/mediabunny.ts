import { lazyRequire } from './lazy.js';

type Mediabunny = typeof import('mediabunny');

/**
 * mediabunny costs about 85 ms and 18 MB to load. Only probing MP4/MOV and joining need it, so it is loaded on
 * first use: an app that only creates, polls and downloads never pays for it.
 *
 * Always with `require`, from the ESM build too: mediabunny's ESM and CommonJS builds are two copies, and loading
 * both makes it warn "Mediabunny was loaded twice". The built package requires the copy of mediabunny's Node bundle
 * it ships (src/build-constants.d.ts), as its mock does (testing/render-output.ts): every entry loads that one file.
 * A `require` also works under Jest's CommonJS mode, where any `import()` fails.
 */
const mediabunny = lazyRequire<Mediabunny>(typeof __VENDORED_MEDIABUNNY__ === 'string' ? __VENDORED_MEDIABUNNY__ : 'mediabunny');

export async function loadMediabunny(): Promise<Mediabunny> {
  return mediabunny();
}
