import { createRequire } from 'node:module';
import type * as Undici from 'undici';

// Resolved from this file, as a static import would be; tsup's shims give the CommonJS build an import.meta.url.
const load = createRequire(import.meta.url);
let loaded: typeof Undici.Agent | undefined;

/**
 * undici's Agent, with the `request` method every dispatcher has, loaded as the main entry loads it: not from
 * undici's index, which makes an Agent of its own the process-wide dispatcher as it loads (Node's own fetch in the
 * application's code would then send with it). Bun and Deno, whose fetch is not undici, get the whole package.
 */
export function undiciAgent(): typeof Undici.Agent {
  loaded ??= loadAgent();
  return loaded;
}

function loadAgent(): typeof Undici.Agent {
  if (process.versions.bun || process.versions.deno) return (load('undici') as typeof Undici).Agent;
  try {
    Object.assign((load('undici/lib/dispatcher/dispatcher.js') as { prototype: object }).prototype, load('undici/lib/api/index.js'));
    return load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
  } catch {
    // These files are undici's layout, not its API: an undici that moved them still sends, through its index.
    return (load('undici') as typeof Undici).Agent;
  }
}
