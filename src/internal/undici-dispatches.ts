import type * as Undici from 'undici';
import { lazyRequire, once } from './lazy.js';

// undici as the SDK uses it: the two dispatchers it makes (the client's own pool, the CLI's proxy), loaded without
// changing the process's global dispatcher.

/** What the SDK makes from undici; every request goes through a dispatcher it holds, never the global one. */
export type UndiciParts = Pick<typeof Undici, 'Agent' | 'EnvHttpProxyAgent'>;

const whole = lazyRequire<typeof Undici>('undici');
const dispatcherBase = lazyRequire<{ prototype: object }>('undici/lib/dispatcher/dispatcher.js');
const dispatcherApi = lazyRequire<object>('undici/lib/api/index.js');
const agent = lazyRequire<typeof Undici.Agent>('undici/lib/dispatcher/agent.js');
const envHttpProxyAgent = lazyRequire<typeof Undici.EnvHttpProxyAgent>('undici/lib/dispatcher/env-http-proxy-agent.js');

/**
 * undici's dispatchers, loaded at the first request. On Node, not undici's index: that installs an Agent of undici's
 * as the process-wide dispatcher when none is set (its lib/global.js, as it loads), which Node 20's and 22's own fetch
 * then send with and trip on (a Blob or bytes body with a content-length), and it loads Node's own fetch (to read
 * `globalThis.Headers`), so the global could not just be put back. Bun and Deno, whose fetch is not undici, get the
 * whole package (Bun's own partial copy of it).
 */
export const undici = once((): UndiciParts => {
  if (process.versions.bun || process.versions.deno) return whole();
  try {
    // The methods every dispatcher has (`request`, `stream`, ...), put on its base class as undici's index does.
    Object.assign(dispatcherBase().prototype, dispatcherApi());
    return { Agent: agent(), EnvHttpProxyAgent: envHttpProxyAgent() };
  } catch {
    // These files are undici's own layout, not its API: an undici that moved them still sends, through its index.
    return whole();
  }
});

/** Whether this runtime's undici has the dispatcher the SDK drives (Bun's own partial copy has none). */
export function undiciDispatches(): boolean {
  return typeof undici().Agent.prototype.dispatch === 'function';
}
