/**
 * `@modelcontextprotocol/inspector`, the third-party MCP client the e2e tests drive in `--cli` mode. It needs Node
 * >= 22.19, so it runs on Node 24 (node-versions.ts: AVATAR_VIDEO_NODE24 under .ci/run); it is installed with that
 * Node's npm once into .tmp/tools/inspector-<version> (npm-tool.ts), or AVATAR_VIDEO_MCP_INSPECTOR names its launcher.
 */
import { nodeBinary } from './node-versions.js';
import { type Found, missing, npmTool } from './npm-tool.js';

export const INSPECTOR_VERSION = '2.12.0';

/** How to run the inspector: the Node and its launcher script, or why there is none. */
export type Inspector = Found<{ node: string; script: string }>;

/** The inspector at its pinned version on Node 24, found or installed; never rejects. */
export async function inspector(): Promise<Inspector> {
  const node = await nodeBinary(24);
  if ('missing' in node) return node;
  try {
    const script = await npmTool({
      spec: `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
      folder: `tools/inspector-${INSPECTOR_VERSION}`,
      file: '@modelcontextprotocol/inspector/clients/launcher/build/index.js',
      env: 'AVATAR_VIDEO_MCP_INSPECTOR',
      node: node.path,
    });
    return { node: node.path, script };
  } catch (error) {
    return missing(`MCP inspector ${INSPECTOR_VERSION}`, error);
  }
}
