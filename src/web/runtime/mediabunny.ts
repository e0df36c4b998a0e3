import type * as Node from '../../internal/mediabunny.js';

// The web build's internal/mediabunny.ts (tsup.config.ts): mediabunny's own ESM build, imported at the first MP4/MOV
// probed, so it stays out of a Worker or a page that only sends images.

export const loadMediabunny: typeof Node.loadMediabunny = () => import('mediabunny');
