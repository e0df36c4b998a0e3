/**
 * Runs every example against the embedded mock, prints pass or fail for each, and exits 1 if any failed.
 * `npm run examples`; CI runs it too.
 *
 * Each example runs in a fresh temporary folder (they save MP4s to the current folder) with the
 * service variables removed, so that each one starts its own mock. examples/*.test.ts run under vitest.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli');
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const TIMEOUT_MS = 120_000;

interface Example {
  name: string;
  args: string[];
}

const files = (await readdir(join(root, 'examples'))).filter((file) => file.endsWith('.ts') && file !== 'vitest.config.ts').sort();
const examples: Example[] = files.map((file) =>
  file.endsWith('.test.ts')
    ? {
        name: file,
        args: [vitest, 'run', '--root', root, '--config', join(root, 'examples/vitest.config.ts'), join(root, 'examples', file)],
      }
    : // tsx finds the tsconfig `paths` that map the package name to the sources only when told where it is.
      { name: file, args: [tsx, '--tsconfig', join(root, 'tsconfig.json'), join(root, 'examples', file)] },
);

/** Run one example to completion; resolves with its exit code (null after a timeout) and combined output. */
async function run(example: Example): Promise<{ code: number | null; output: string; ms: number }> {
  const cwd = await mkdtemp(join(tmpdir(), 'avatar-video-example-'));
  const env = { ...process.env };
  delete env.AVATAR_VIDEO_BASE_URL;
  delete env.AVATAR_VIDEO_API_KEY;
  const started = performance.now();
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, example.args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const collect = (chunk: Buffer) => {
        output += chunk;
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output, ms: performance.now() - started });
      });
    });
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

let failed = 0;
// One at a time: the output stays readable and the timings honest.
for (const example of examples) {
  const { code, output, ms } = await run(example);
  const seconds = `${(ms / 1000).toFixed(1)} s`;
  if (code === 0) {
    console.log(`pass  ${example.name} (${seconds})`);
  } else {
    failed++;
    console.log(`FAIL  ${example.name} (${code === null ? 'timed out' : `exit ${code}`}, ${seconds})`);
    console.log(output.replace(/^/gm, '      '));
  }
}
console.log(`${examples.length - failed} of ${examples.length} examples passed`);
process.exitCode = failed > 0 ? 1 : 0;
