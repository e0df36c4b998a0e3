import { InvalidArgumentError } from '../errors.js';
import { CREATE_RATE_EXPECTED, isCreateRate } from './create-rate.js';

// The public methods' arguments, checked where a JavaScript caller passes them (types do not reach them): a missing
// or wrong value becomes an InvalidArgumentError that names the method and says what to pass, before any request,
// rather than a TypeError from deep inside, or a string that reaches undici or a timer and fails there obscurely.

/** Longest delay a Node timer accepts (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type Rule = [test: (value: unknown) => boolean, expected: string];

const isNumber = (value: unknown): value is number => typeof value === 'number';
export const isWhole = (value: unknown): value is number => Number.isInteger(value);
export const isFilled = (value: unknown): value is string => typeof value === 'string' && value !== '';
const wholeFrom = (min: number): Rule => [(n) => isWhole(n) && n >= min, `a whole number of at least ${min}`];
const milliseconds = (min: number): Rule => [
  (n) => isNumber(n) && n >= min && n <= MAX_TIMER_MS,
  `a number of milliseconds from ${min} to ${MAX_TIMER_MS}`,
];
const seconds: Rule = [(n) => isNumber(n) && n > 0 && Number.isFinite(n), 'a positive number of seconds'];
/** A limit: no limit at all (`Infinity`) is one too. */
const secondsOrMore: Rule = [(n) => isNumber(n) && n > 0, 'a positive number of seconds'];

/** A path: a non-empty string. `what` says what it names, for the message. */
export const pathTo = (what: string): Rule => [isFilled, what];

/** `'auto'`, or a fixed number of jobs at once. */
export const CONCURRENCY: Rule = [(n) => n === 'auto' || wholeFrom(1)[0](n), "'auto' or a whole number of at least 1"];

/**
 * The options of the public methods that a wrong value would break, by name: a name means the same wherever it is
 * used. Each reaches undici, a timer or a loop bound (a string `maxRetries` retried forever), or is called later.
 */
const OPTION_RULES: Record<string, Rule> = {
  timeout: milliseconds(1),
  pollInterval: milliseconds(1),
  maxPollInterval: milliseconds(1),
  waitTimeout: milliseconds(1),
  maxRetryDelay: milliseconds(0),
  maxRetries: wholeFrom(0),
  maxResumes: wholeFrom(0),
  maxJobAttempts: wholeFrom(1),
  // Deprecated aliases of maxJobAttempts, checked alike while they last.
  maxAttempts: wholeFrom(1),
  maxSegmentAttempts: wholeFrom(1),
  maxSegmentSeconds: seconds,
  minSegmentSeconds: seconds,
  searchWindowSeconds: seconds,
  maxAudioSeconds: secondsOrMore,
  concurrency: CONCURRENCY,
  maxConcurrency: CONCURRENCY,
  jobConcurrency: CONCURRENCY,
  createRate: [isCreateRate, CREATE_RATE_EXPECTED],
  billingIncrementSeconds: seconds,
  jobSeconds: seconds,
  signal: [
    (s) => typeof (s as AbortSignal)?.aborted === 'boolean' && typeof (s as AbortSignal).addEventListener === 'function',
    'an AbortSignal',
  ],
  videoId: [(id) => isFilled(id) && id !== '.' && id !== '..', "a job's id (e.g. 'vid_123')"],
  jobLimit: [(l) => l === 'client' || l === 'external', "'client' or 'external'"],
  outputDir: pathTo('a folder path'),
  workDir: pathTo('a folder path'),
  fetch: [(f) => typeof f === 'function', 'a function with the signature of fetch'],
  headers: [(h) => typeof h === 'object' && h !== null && !Array.isArray(h), 'an object of header names and values'],
};
/** Items of a batch: an array or another iterable, sync or async (a string is iterable too, but never meant). */
export const ITERABLE: Rule = [
  (items) => typeof items === 'object' && items !== null && (Symbol.iterator in items || Symbol.asyncIterator in items),
  'an array or an (async) iterable of items',
];

/** `onProgress`, `onItem`...: called later, in the middle of a job that is paid for. */
const CALLBACK = /^on[A-Z]/;
const FUNCTION: Rule = [(f) => typeof f === 'function', 'a function'];

/**
 * `value`, unless `rule` refuses it: then an InvalidArgumentError `<method>: <name> must be <expected>, got <value>.`
 * `method` is how the caller wrote the call (`videos.download`), or '' where the name says enough.
 */
export function checkArgument<T>(method: string, name: string, value: T, [test, expected]: Rule): T {
  if (test(value)) return value;
  throw new InvalidArgumentError(name, `${method ? `${method}: ` : ''}${name} must be ${expected}, got ${describe(value)}.`);
}

/**
 * An options argument, checked: `undefined` is `{}` unless the method needs options (`example` then shows some);
 * anything else must be an object, whose options of a name in {@link OPTION_RULES} (or a callback's) have a
 * value of the right kind. `name` is the argument's name in messages.
 */
export function checkOptions<T extends object>(method: string, options: T | undefined, example?: string, name = 'options'): T {
  if (options === undefined && example === undefined) return {} as T;
  const expected = example === undefined ? 'an object' : `an object, e.g. ${example}`;
  checkArgument(method, name, options, [(o) => typeof o === 'object' && o !== null && !Array.isArray(o), expected]);
  for (const [key, value] of Object.entries(options as object)) {
    const rule = OPTION_RULES[key] ?? (CALLBACK.test(key) ? FUNCTION : undefined);
    if (rule && value !== undefined) checkArgument(method, key, value, rule);
  }
  return options as T;
}

/**
 * `options`, unless it sets `name`: an option a wider type once let this method take though it does nothing here.
 * Refused with an InvalidArgumentError `<method>: <name> does not apply here: <applies>.` rather than ignored.
 */
export function refuseOption<T extends object>(method: string, options: T, name: string, applies: string): T {
  if ((options as Record<string, unknown>)[name] === undefined) return options;
  throw new InvalidArgumentError(name, `${method}: ${name} does not apply here: ${applies}.`);
}

/** The id of `video`, given as an id or as a video object (its `id`), as the methods returned it. */
export function videoIdOf(method: string, video: unknown): string {
  const id = typeof video === 'object' && video !== null ? (video as { id?: unknown }).id : video;
  const valid = isFilled(id) && id !== '.' && id !== '..';
  checkArgument(method, 'video', video, [() => valid, "a video id (e.g. 'vid_123') or a video object"]);
  return id as string;
}

/** A value as a message shows it: short, and never an object's contents. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? 'a function' : String(value);
  return `an object (${value.constructor?.name ?? 'no prototype'})`;
}
