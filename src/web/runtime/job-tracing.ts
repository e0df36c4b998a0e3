import type * as Node from '../../lib/tracing.js';

// The web build's lib/tracing.ts (tsup.config.ts): no diagnostics_channel on the web, so no operation is traced.

export const traceJob: typeof Node.traceJob = (_trace, call) => call(undefined);
export const countPoll: typeof Node.countPoll = () => {};
export const traceDownload: typeof Node.traceDownload = (videoId, call) => call({ videoId, resumes: 0, restarts: 0 });
export const traceBatchItem: typeof Node.traceBatchItem = (_key, call) => call();
