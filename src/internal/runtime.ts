// Which JavaScript runtime the SDK runs in, for the user-agent: Bun and Deno also define `process.versions.node`
// (their Node compatibility), so they are asked first. Web-pure: it only reads globals, so the web entry can reuse it.

/** The globals the answer is read from (`globalThis` by default; a test passes its own). */
export interface RuntimeGlobals {
  Bun?: { version?: unknown } | undefined;
  Deno?: { version?: { deno?: unknown } } | undefined;
  process?: { versions?: { node?: unknown } } | undefined;
  EdgeRuntime?: unknown;
  navigator?: { userAgent?: unknown } | undefined;
  document?: unknown;
}

/** `bun/1.4.4`, `deno/2.9.6`, `node/20.20.2`, `workerd`, `edge-runtime`, `browser`, or `unknown`. */
export function runtimeName(globals: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  const bun = globals.Bun?.version;
  if (typeof bun === 'string') return `bun/${bun}`;
  const deno = globals.Deno?.version?.deno;
  if (typeof deno === 'string') return `deno/${deno}`;
  if (typeof globals.EdgeRuntime === 'string') return 'edge-runtime';
  if (globals.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  const node = globals.process?.versions?.node;
  if (typeof node === 'string') return `node/${node}`;
  return globals.document === undefined ? 'unknown' : 'browser';
}
