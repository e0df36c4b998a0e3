import { delimiter, resolve } from 'node:path';

/**
 * Where tool paths may be when the client names no roots of its own: AVATAR_VIDEO_MCP_ROOTS (folders separated by
 * the platform's path delimiter, `:` or `;`), else the working directory. The client's roots/list wins when it
 * answers with at least one root (tools.ts asks it on every call, as roots may change).
 */
export interface RootsSource {
  /** Absolute folders, used when the client has no roots. */
  fallback: readonly string[];
}

/** The fallback roots from the environment, each made absolute against `cwd`. */
export function rootsFromEnvironment(env: NodeJS.ProcessEnv, cwd: string): RootsSource {
  const listed = (env.AVATAR_VIDEO_MCP_ROOTS ?? '')
    .split(delimiter)
    .map((root) => root.trim())
    .filter((root) => root !== '');
  return { fallback: listed.length > 0 ? listed.map((root) => resolve(cwd, root)) : [cwd] };
}
