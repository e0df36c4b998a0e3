import type * as Node from '../../internal/tracing.js';

// The web build's internal/tracing.ts (tsup.config.ts): tracing is node:diagnostics_channel, which Workers and
// browsers lack, so on the web nothing listens and every call runs as it is.

export const FILE_ROUTE: typeof Node.FILE_ROUTE = '{file}';
export const requestsTraced: typeof Node.requestsTraced = () => false;
export const traced: typeof Node.traced = (_channel, _trace, call) => call();
export const inScope: typeof Node.inScope = (_scope, call) => call();
export const currentScope: typeof Node.currentScope = () => undefined;
export const traceRequest: typeof Node.traceRequest = (_site, call) => call();
