/**
 * Running the `avatar-video` command in a test, two ways with one result: `runCli` calls src/cli/run.ts in this
 * process (fast: most CLI tests), `spawnCli` starts the built bin as a real process (the bin entry, a real
 * SIGINT, the exit status the shell sees).
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { vi } from 'vitest';
import { run } from '../../src/cli/run.js';

export interface CliRun {
  /** The exit code (null if the process was killed). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for `--json` runs). */
  // biome-ignore lint/suspicious/noExplicitAny: parsed output; the tests assert on it field by field.
  json: () => any;
}

export interface CliOptions {
  /** The working folder: relative paths on the command line resolve from it. @default the test's own */
  cwd?: string;
  /** Variables to set for the run; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /**
   * When to press Ctrl-C: when stderr contains this text, or when this returns true for stderr so far (checked every
   * 10 ms); a list presses it once for each, in order.
   */
  interruptWhen?: string | ((stderr: string) => boolean) | Array<string | ((stderr: string) => boolean)>;
}

/**
 * The variables by which npm says it started a command (src/cli/invocation.ts), which the test runner's own start
 * (`npx vitest`, `npm test`) sets: removed, so a run is as from a shell unless a test sets them.
 */
const FROM_A_SHELL = { npm_command: undefined, npm_lifecycle_event: undefined };

interface Output {
  stdout: string;
  stderr: string;
}

let running = false;

/**
 * Run the CLI in this process, on streams of its own, with an abort signal for Ctrl-C. The environment and the
 * working folder are the process's, set for the run and restored after it: so one run at a time.
 */
export async function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  if (running) throw new Error('runCli runs one command at a time: it sets the process environment and working folder');
  running = true;
  const output: Output = { stdout: '', stderr: '' };
  const controller = new AbortController();
  const previousCwd = process.cwd();
  for (const [name, value] of Object.entries({ ...FROM_A_SHELL, ...options.env })) vi.stubEnv(name, value);
  process.chdir(options.cwd ?? previousCwd);
  const stopWatching = watch(options.interruptWhen, output, () => controller.abort(new Error('interrupted (Ctrl-C)')));
  try {
    const io = { stdout: sink(output, 'stdout'), stderr: sink(output, 'stderr'), signal: controller.signal };
    return finished(await run(['node', 'avatar-video', ...args], io), output);
  } finally {
    stopWatching();
    process.chdir(previousCwd);
    vi.unstubAllEnvs();
    running = false;
  }
}

/** Run the built command `bin` (see builtPackage) in a process of its own; Ctrl-C is a real SIGINT. */
export function spawnCli(bin: string, args: string[], options: CliOptions): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, ...FROM_A_SHELL, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // A hung CLI fails its test with its output rather than a bare timeout.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const output: Output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk;
  });
  const stopWatching = watch(options.interruptWhen, output, () => child.kill('SIGINT'));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      stopWatching();
      resolve(finished(code, output));
    });
  });
}

/** A stream that adds what is written to `output[name]` as it is written. Not a terminal, as in a pipe. */
function sink(output: Output, name: keyof Output): NodeJS.WriteStream {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output[name] += chunk.toString();
      done();
    },
  });
  return stream as unknown as NodeJS.WriteStream;
}

function watch(when: CliOptions['interruptWhen'], output: Output, interrupt: () => void): () => void {
  const pending = when === undefined ? [] : Array.isArray(when) ? [...when] : [when];
  if (pending.length === 0) return () => {};
  const timer = setInterval(() => {
    const next = pending[0];
    if (next === undefined || !(typeof next === 'string' ? output.stderr.includes(next) : next(output.stderr))) return;
    pending.shift();
    if (pending.length === 0) clearInterval(timer);
    interrupt();
  }, 10);
  return () => clearInterval(timer);
}

function finished(code: number | null, output: Output): CliRun {
  return { code, ...output, json: () => JSON.parse(output.stdout) };
}
