import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics_channel from 'node:diagnostics_channel';
import { lazyRequire } from '../internal/lazy.js';
import type { Runtime, TracingChannel } from '../internal/platform.js';
import { isOneShot, openSource } from '../internal/source.js';

// The part of Node's platform (platform/node.ts) that code below the client reaches as `#platform` (package.json's
// `imports`, default condition): paths and Node streams as inputs (spooled to disk), node:diagnostics_channel, and
// mediabunny. No HTTP client: avatar-video/media and avatar-video/ai-sdk bundle what this reaches.

/**
 * mediabunny costs about 85 ms and 18 MB to load: only probing MP4/MOV and joining need it. Always with `require`,
 * from the ESM build too: mediabunny's ESM and CommonJS builds are two copies, and loading both makes it warn
 * "Mediabunny was loaded twice". The built package requires the copy of mediabunny's Node bundle it ships
 * (src/build-constants.d.ts), as its mock does (testing/render-output.ts): every entry loads that one file.
 */
const mediabunny = lazyRequire<typeof import('mediabunny')>(
  typeof __VENDORED_MEDIABUNNY__ === 'string' ? __VENDORED_MEDIABUNNY__ : 'mediabunny',
);

/** @internal The runtime of Node, Bun and Deno, as the code below the client reaches it. */
export const platform: Runtime = {
  openSource: (input, field, name) => openSource(input as never, field, name),
  isOneShot,
  tracingChannel: <P extends object>(name: string) => diagnostics_channel.tracingChannel<string, P>(name) as unknown as TracingChannel<P>,
  operationScope: () => new AsyncLocalStorage<object>(),
  loadMediabunny: async () => mediabunny(),
};
