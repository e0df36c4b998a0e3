import { lazyRequire } from './lazy.js';

type Mediabunny = typeof import('mediabunny');

/**
 * mediabunny costs about 85 ms and 18 MB to load. Only probing MP4/MOV and joining need it, so it is loaded on
 * first use: an app that only creates, polls and downloads never pays for it.
 *
 * Always with `require`, from the ESM build too: mediabunny's ESM and CommonJS builds are two copies, and loading
 * both (an `import()` here, a `require` in avatar-video/testing's CommonJS build) makes it warn "Mediabunny was
 * loaded twice". The mock loads it the same way (testing/render-output.ts). A `require` also works under Jest's
 * CommonJS mode, where any `import()` fails.
 */
const mediabunny = lazyRequire<Mediabunny>('mediabunny');

export async function loadMediabunny(): Promise<Mediabunny> {
  return mediabunny();
}
