/**
 * A Worker's script bundled as wrangler bundles it (esbuild, the workerd and worker conditions, then browser), for
 * tests that run it in workerd through miniflare: the Worker example and the webhooks receiver.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

/** The bundle of `file` in `dir`, as one ES module's text; `tsconfig`, when the folder must not take a parent's. */
export async function bundleWorker(dir: string, file: string, tsconfig?: string): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [join(dir, file)],
    absWorkingDir: dir,
    ...(tsconfig === undefined ? {} : { tsconfig }),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    // wrangler's: the workerd and worker conditions, then browser.
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
  });
  return outputFiles.map((output) => output.text).join('\n');
}
