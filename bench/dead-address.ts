/**
 * A dead base URL: how long `avatar-video generate` takes to fail against a closed loopback port (listened on, then
 * closed, so nothing answers: ECONNREFUSED), run from the sources of this checkout and, when given, of a baseline
 * checkout (main before the fix) in the same run. Prints the wall seconds of each, the retry lines the CLI printed,
 * and the ratio.
 *
 *   npx tsx bench/dead-address.ts [baseline checkout, e.g. /path/to/main]
 *
 * Target (issue 37): under 15 s by default, with the existing message; main took 112-125 s.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/system-command.js';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const baseline = process.argv[2];

/** Run `generate` from `checkout`'s sources against `port`; its wall seconds, exit code and stderr. */
async function timeGenerate(checkout: string, port: number, folder: string) {
  const tsx = join(checkout, 'node_modules', '.bin', 'tsx');
  const samples = join(HERE, 'samples');
  const args = [join(checkout, 'src/cli/index.ts'), 'generate', '--image', join(samples, 'portrait.png')];
  args.push('--audio', join(samples, 'speech.wav'), '--output', join(folder, `${Date.now()}.mp4`));
  const env = { ...process.env, AVATAR_VIDEO_API_KEY: 'sk_dead_address', AVATAR_VIDEO_BASE_URL: `http://127.0.0.1:${port}` };
  const started = performance.now();
  const child = spawn(tsx, args, { env, cwd: folder, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { seconds: (performance.now() - started) / 1000, code, stderr };
}

const folder = await mkdtemp(join(tmpdir(), 'bench-dead-address-'));
try {
  const runs = [...(baseline ? [{ label: 'baseline', checkout: resolve(baseline) }] : []), { label: 'this checkout', checkout: HERE }];
  const seconds: number[] = [];
  for (const { label, checkout } of runs) {
    // A port just listened on and closed: nothing listens there, so connecting is refused.
    const result = await timeGenerate(checkout, await freePort(), folder);
    seconds.push(result.seconds);
    const retries = result.stderr.split('\n').filter((line) => /again|retry/i.test(line)).length;
    const last =
      result.stderr
        .trim()
        .split('\n')
        .find((line) => line.startsWith('error:')) ?? '(no error line)';
    console.log(`${label.padEnd(14)} ${result.seconds.toFixed(1).padStart(6)} s  exit ${result.code}  ${retries} retry line(s)  ${last}`);
  }
  if (seconds.length === 2) console.log(`ratio this/baseline: ${((seconds[1] as number) / (seconds[0] as number)).toFixed(3)}`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
