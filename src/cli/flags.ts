import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CreateRate, parseCreateRate } from '../internal/create-rate.js';
import { encodeSegment } from '../internal/path.js';

/** The file flags of `generate`, `create` and `validate` (and columns of a batch file), and the create parameter each fills. */
export const MEDIA_FLAGS = { audio: 'audio_reference', image: 'image_reference', video: 'video_reference' } as const;

export type MediaFlags = Partial<Record<keyof typeof MEDIA_FLAGS | 'model', string>>;

/** Each create parameter's flag (and batch column) name, in the order problems are listed. */
export const NAME_OF_FIELD: Record<string, string> = {
  ...Object.fromEntries(Object.entries(MEDIA_FLAGS).map(([name, field]) => [field, name])),
  model: 'model',
};

/** Problems are reported by flag (`--audio`), since that is what the user typed. */
export function flagFor(field: string): string {
  return NAME_OF_FIELD[field] ? `--${NAME_OF_FIELD[field]}` : field;
}

/** Add the input flags to a command. Exactly-one-of is checked by validation, which lists every problem at once. */
export function withMediaFlags(command: Command, audio = 'driving audio: WAV or MP3, 1 to 60 s'): Command {
  return command
    .option('--audio <file>', audio)
    .option('--image <file>', 'appearance image: JPEG or PNG (give this or --video)')
    .option('--video <file>', 'appearance video: MP4 or MOV, 10 to 60 s (a gated preview)')
    .option('--model <name>', 'model name, e.g. service-avatar-x (the service default) or service-video-1-latest');
}

/** An option parser for a number that `valid` accepts; commander reports `expected ...` as a usage error. */
function numberFlag(valid: (number: number) => boolean, expected: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!valid(number)) throw new InvalidArgumentError(`expected ${expected}.`);
    return number;
  };
}

const isPositiveInteger = (number: number) => Number.isSafeInteger(number) && number >= 1;
export const positiveInteger = numberFlag(isPositiveInteger, 'a whole number of at least 1');
/** 0 means "any free port". */
export const port = numberFlag((number) => Number.isInteger(number) && number >= 0 && number <= 65_535, 'a port from 0 to 65535');
const seconds = numberFlag((number) => Number.isFinite(number) && number > 0, 'a number of seconds above 0');
/** A duration given in seconds, returned in milliseconds (the SDK's unit). */
export const secondsToMs = (value: string): number => Math.round(seconds(value) * 1000);
const fixedConcurrency = numberFlag(isPositiveInteger, "'auto' or a whole number of at least 1");
export const concurrency = (value: string): number | 'auto' => (value === 'auto' ? value : fixedConcurrency(value));

/** A `--create-rate`: `<creates>/<seconds>`, as `AVATAR_VIDEO_CREATE_RATE` takes it. */
export function createRate(value: string): CreateRate {
  const rate = parseCreateRate(value);
  if (rate === undefined) throw new InvalidArgumentError('expected creates per window as <creates>/<seconds>, e.g. 2/60 for two a minute.');
  return rate;
}

/**
 * Add `--create-rate <creates/seconds>` to a command that creates jobs: the client's `createRate`, over
 * AVATAR_VIDEO_CREATE_RATE (session.ts reads it).
 */
export function withCreateRate(command: Command): Command {
  return command.addOption(
    new Option(
      '--create-rate <creates/seconds>',
      "your account's create rate, e.g. 2/60 (the service's published limit): creates wait for room (default: $AVATAR_VIDEO_CREATE_RATE)",
    ).argParser(createRate),
  );
}

/** The wait's deadline flag given: `--wait-timeout`, or its hidden old name `--timeout`. */
export type WaitTimeoutFlags = { waitTimeout?: number; timeout?: number };

/**
 * Add `--wait-timeout <seconds>` (the SDK's `waitTimeout`, for each job), and `--timeout`, its old name, kept hidden
 * for one minor version: read both with {@link waitTimeoutOf}.
 */
export function withWaitTimeout(command: Command, what: string): Command {
  return command
    .option('--wait-timeout <seconds>', `stop waiting for ${what} after this long; the job keeps running (default: 600)`, secondsToMs)
    .addOption(new Option('--timeout <seconds>', 'deprecated: use --wait-timeout').argParser(secondsToMs).hideHelp());
}

/** The wait's deadline in ms; `--timeout` still works, with one line on stderr (through `warn`) that it is going. */
export function waitTimeoutOf(flags: WaitTimeoutFlags, warn: (line: string) => void): number | undefined {
  if (flags.timeout === undefined) return flags.waitTimeout;
  warn('--timeout is deprecated and will be removed in the next minor version: use --wait-timeout');
  return flags.waitTimeout ?? flags.timeout;
}

/** A video id, as `create` and `list` print it: the SDK's own rule (no blank, `.` or `..`), said in the CLI's words. */
export function videoId(value: string): string {
  try {
    encodeSegment(value.trim());
  } catch {
    throw new InvalidArgumentError('expected a video id, as `create` and `list` print it, not a path or a blank.');
  }
  return value;
}

/** A `--proxy` address: an http(s) URL, as `HTTPS_PROXY` takes it (credentials in it, e.g. `http://user:pass@proxy:3128`). */
export function proxyUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new InvalidArgumentError('expected a proxy address such as http://proxy.internal:3128.');
  }
  return value;
}

/**
 * The proxy for `protocol` and where its address came from: `--proxy`, else the variable undici's
 * EnvHttpProxyAgent reads for it (lower case first; https falls back to the http proxy). NO_PROXY is not applied here.
 */
export function proxySource(flag: string | undefined, protocol: string, env = process.env): { url: string; from: string } | undefined {
  if (flag) return { url: flag, from: '--proxy' };
  const https = protocol === 'https:' ? firstSet(env, 'https_proxy', 'HTTPS_PROXY') : undefined;
  return https?.url ? https : firstSet(env, 'http_proxy', 'HTTP_PROXY');
}

/** The first of the variables that is defined (even empty, as undici's `??` reads them), if its value is not empty. */
function firstSet(env: NodeJS.ProcessEnv, ...names: string[]): { url: string; from: string } | undefined {
  const name = names.find((candidate) => env[candidate] !== undefined);
  return name && env[name] ? { url: env[name], from: name } : undefined;
}
