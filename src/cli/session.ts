import { styleText } from 'node:util';
import type { Dispatcher } from 'undici';
import { AvatarVideo, AvatarVideoError, type ClientOptions, type Logger } from '../index.js';
import { isLoopbackHost } from '../internal/loopback.js';
import { shorten } from '../internal/shorten.js';
import { undici, undiciDispatches } from '../internal/undici-dispatches.js';
import { proxySource } from './flags.js';
import { createProgress, type Progress } from './progress.js';
import { type Problem, UsageError } from './usage-error.js';

/**
 * Exit codes of the `avatar-video` command, as `--help` lists them. Scripts branch on them, so they never change
 * meaning. `usage`: nothing was sent (or nothing could be); `interrupted` is 128 + SIGINT, as shells report Ctrl-C.
 */
export const ExitCode = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** How a thrown error is reported: the exit code, lines for a person, and an object for `--json`. */
export interface Failure {
  exitCode: ExitCode;
  lines: string[];
  json: { error: Record<string, unknown> };
  /** What must change before the command can work (also `json.error.fix`): a suggested command is for after that. */
  fix?: string | undefined;
}

/** A job this run created or is following. Once one exists, every failure says how to go on without paying again. */
export interface TrackedJob {
  id: string;
  /** The last status seen; undefined when not seen yet (`download` takes the user's word that it is COMPLETE). */
  status?: string | undefined;
  /** Where the command was to save the MP4; undefined when it saves nothing (`wait`). */
  output?: string | undefined;
}

/**
 * What one run of the CLI shares between its parts: the options, the Ctrl-C signal, the client
 * (made on first use, so commands that need no key never ask for one) and the two output streams:
 * results on stdout, everything else on stderr.
 */
export class Session {
  json = false;
  /** The command as the user ran it (`npx avatar-video` or `avatar-video`: invocation.ts), for the commands we suggest. */
  command = 'avatar-video';
  /** The --base-url flag, when given (a suggested command needs only this: the environment carries over by itself). */
  baseUrl: string | undefined;
  allowInsecureHttp = false;
  /** The --proxy flag, when given: it replaces HTTP(S)_PROXY for this run; NO_PROXY still applies. */
  proxy: string | undefined;
  /** The --create-rate flag of a command that creates, when given: the client's `createRate` (over AVATAR_VIDEO_CREATE_RATE). */
  createRate: AvatarVideo.CreateRate | undefined;
  job: TrackedJob | undefined;
  /** A run that records its jobs in a manifest (long audio), once begun: a failure then says to run it again. */
  rerun: { videoIds: string[] } | undefined;
  /** The whole create request went out: a failure before its answer may still leave a job on the service. */
  uploadSent = false;
  /** Whether the command was given --force (the suggested download keeps it). */
  force = false;
  /** Exit code of a command that ran to its end without full success (a batch with failed items). */
  exitCode: ExitCode = ExitCode.ok;
  /** Colour for stderr: only on a terminal, and never when NO_COLOR is set and not empty (https://no-color.org). */
  readonly paint: (style: Parameters<typeof styleText>[0], text: string) => string;
  #client: AvatarVideo | undefined;
  #dispatcher: Dispatcher | undefined;
  #progress: Progress | undefined;

  constructor(
    readonly signal: AbortSignal,
    readonly stdout: NodeJS.WriteStream,
    readonly stderr: NodeJS.WriteStream,
  ) {
    // A reader that leaves early (`avatar-video --help | head -3`) closes the pipe: the rest is unwanted, which is
    // no reason to end with a stack trace.
    for (const stream of [stdout, stderr]) stream.on('error', ignoreClosedPipe);
    // Node 20's styleText checks neither itself.
    const colour = Boolean(stderr.isTTY) && (process.env.NO_COLOR ?? '') === '';
    this.paint = (style, text) => (colour ? styleText(style, text) : text);
    // Ctrl-C releases the terminal at once: what is said after it goes on lines of its own, not into a bar.
    signal.addEventListener('abort', () => this.#progress?.stop(), { once: true });
  }

  /** Take the options every command accepts. */
  configure(
    options: { json?: boolean; baseUrl?: string; allowInsecureHttp?: boolean; proxy?: string; createRate?: unknown },
    creates = true,
  ): void {
    this.json = options.json ?? false;
    this.baseUrl = options.baseUrl;
    this.proxy = options.proxy;
    // `mock --create-rate` is the mock's own limit, not the client's.
    this.createRate = creates ? (options.createRate as AvatarVideo.CreateRate | undefined) : undefined;
    const allowed = process.env.AVATAR_VIDEO_ALLOW_INSECURE_HTTP?.trim() ?? '';
    this.allowInsecureHttp = options.allowInsecureHttp === true || /^(1|true|yes|on)$/i.test(allowed);
  }

  /** Follow a job from now on; call again with each new state seen. */
  track(video: { id: string; status?: string | undefined }, output?: string): void {
    this.job = { id: video.id, status: video.status, output: output ?? this.job?.output };
  }

  /** The service address in use, when one is configured. */
  get serviceAddress(): string | undefined {
    return this.#client?.baseURL ?? this.baseUrl ?? process.env.AVATAR_VIDEO_BASE_URL?.trim();
  }

  /**
   * The proxy the service address goes through, as a failure names it: its host (never its credentials) and where
   * it came from (`--proxy`, `HTTPS_PROXY`, ...); undefined when none is set, or NO_PROXY exempts the service.
   */
  get proxyInUse(): { host: string; from: string } | undefined {
    const address = this.serviceAddress;
    const service = address && URL.canParse(address) ? new URL(address) : undefined;
    const source = proxySource(this.proxy, service?.protocol ?? 'https:');
    if (!source || !URL.canParse(source.url)) return undefined;
    if (service && exemptFromProxy(service, process.env.no_proxy ?? process.env.NO_PROXY ?? '')) return undefined;
    return { host: new URL(source.url).host, from: source.from };
  }

  /** The API client, from AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL (or --base-url). */
  client(): AvatarVideo {
    if (this.#client) return this.#client;
    const problems: Problem[] = [];
    if (!process.env.AVATAR_VIDEO_API_KEY?.trim()) {
      const message = 'AVATAR_VIDEO_API_KEY is not set: export it (there is no key flag, to keep keys out of shell history)';
      problems.push({ code: 'missing_api_key', message });
    }
    const baseURL = this.baseUrl ?? process.env.AVATAR_VIDEO_BASE_URL?.trim();
    const problem = baseUrlProblem(baseURL, this.baseUrl ? '--base-url' : 'AVATAR_VIDEO_BASE_URL', this.allowInsecureHttp);
    if (problem) problems.push(problem);
    const missing = problems.filter((problem) => problem.code.startsWith('missing_')).at(-1);
    if (missing) missing.message += `; to try without an account, run \`${this.command} mock\` and export the two lines it prints`;
    if (problems.length > 0) throw new UsageError(problems);
    try {
      const { allowInsecureHttp } = this;
      // Bun's partial undici has no dispatcher: there the proxy goes through the runtime's own fetch.
      const fetch = undiciDispatches() ? undefined : proxyFetch(this.proxy);
      this.#dispatcher = fetch ? undefined : proxyDispatcher(this.proxy);
      const { createRate } = this;
      this.#client = new AvatarVideo({
        baseURL,
        logger: this.#logger(),
        allowInsecureHttp,
        dispatcher: this.#dispatcher,
        fetch,
        createRate,
      });
    } catch (error) {
      // The remaining constructor errors are about configuration (a malformed URL, plain http to a remote host).
      if (error instanceof AvatarVideoError) throw new UsageError([{ code: 'configuration', message: error.message }]);
      throw error;
    }
    return this.#client;
  }

  /** Progress bars or lines on stderr, made on first use. */
  get progress(): Progress {
    this.#progress ??= createProgress(this.stderr);
    return this.#progress;
  }

  /** The command's result on stdout: `value` as JSON with --json, otherwise `lines` for a person. */
  result(value: unknown, lines: string[]): void {
    this.#progress?.stop();
    this.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : lines.map((line) => `${line}\n`).join(''));
  }

  /** A line for a person on stderr (above any bars); kept out of stdout so that `--json` output stays parseable. */
  note(line: string): void {
    if (this.#progress) this.#progress.log(line);
    else this.stderr.write(`${line}\n`);
  }

  warn(line: string): void {
    this.note(`${this.paint('yellow', 'warning:')} ${line}`);
  }

  fail(failure: Failure): void {
    this.#progress?.stop();
    const [first = '', ...rest] = failure.lines;
    const lines = [`${this.paint('red', 'error:')} ${first}`, ...rest.map((line) => `  ${line}`)];
    this.stderr.write(lines.map((line) => `${line}\n`).join(''));
    if (this.json) this.stdout.write(`${JSON.stringify(failure.json, null, 2)}\n`);
  }

  async close(): Promise<void> {
    this.#progress?.stop();
    await this.#client?.close();
    // The client leaves a dispatcher it was given open.
    await this.#dispatcher?.close();
  }

  /**
   * SDK log lines go through the progress display, so they do not tear a bar apart. After Ctrl-C they are dropped: the
   * SDK's warning that a call stopped with a job in hand says what the CLI's own report then says in its terms (the
   * job, and the command that goes on with it), once.
   */
  #logger(): Logger {
    const line = (level: string) => (message: string) => {
      if (!this.signal.aborted) this.note(`${level}: ${message}`);
    };
    return { debug: line('debug'), info: line('info'), warn: line('warning'), error: line('error') };
  }
}

/**
 * undici's EnvHttpProxyAgent when a proxy is set (`--proxy`, which replaces HTTP_PROXY and HTTPS_PROXY, or those
 * variables in either case), so NO_PROXY is honoured as curl does; otherwise undefined: the client's own pool.
 */
function proxyDispatcher(flag: string | undefined): Dispatcher | undefined {
  if (flag) return new (undici().EnvHttpProxyAgent)({ httpProxy: flag, httpsProxy: flag });
  const variables = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'];
  return variables.some((name) => process.env[name]) ? new (undici().EnvHttpProxyAgent)() : undefined;
}

type FetchFunction = NonNullable<ClientOptions['fetch']>;

/**
 * Where undici cannot: a fetch that sends through the proxy EnvHttpProxyAgent would choose (`--proxy`, else the
 * variables), by its NO_PROXY rule, with the runtime's own `proxy` option (Bun's fetch, which also applies its own
 * reading of HTTP_PROXY and NO_PROXY to a request sent without one); undefined when no proxy is set.
 */
export function proxyFetch(flag: string | undefined, env = process.env): FetchFunction | undefined {
  if (!proxySource(flag, 'https:', env) && !proxySource(flag, 'http:', env)) return undefined;
  return (input, init) => {
    const url = new URL(input);
    const proxy = proxySource(flag, url.protocol, env)?.url;
    const through = proxy && !exemptFromProxy(url, env.no_proxy ?? env.NO_PROXY ?? '');
    return fetch(input, through ? ({ ...init, proxy } as RequestInit) : init);
  };
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * undici's NO_PROXY rule (EnvHttpProxyAgent's): entries split on commas and spaces, `*` exempts every host,
 * an entry (a leading `.` or `*.` dropped) exempts its host and the host's subdomains, on its port only if it names one.
 */
export function exemptFromProxy(url: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .some((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      const host = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
      const only = parsed ? Number.parseInt(parsed[2] as string, 10) : 0;
      if (only && only !== port) return false;
      return hostname === host || hostname.endsWith(`.${host}`);
    });
}

function ignoreClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}

/**
 * The mistakes people make with a service address, said with the fix: none, no scheme (suggest https://), and
 * plain http to another machine (say how to allow it). Other malformed addresses are left to the SDK's own check.
 * `source` is where the address came from: `--base-url` or `AVATAR_VIDEO_BASE_URL`.
 */
export function baseUrlProblem(raw: string | undefined, source: string, allowInsecureHttp: boolean): Problem | undefined {
  if (!raw) return { code: 'missing_base_url', message: 'AVATAR_VIDEO_BASE_URL is not set: export it or pass --base-url' };
  if (!raw.includes('://')) {
    return {
      code: 'base_url_scheme',
      message: `${source} ${shorten(raw)} has no scheme: use https://${shorten(raw.replace(/^\/+/, ''))} (or http:// for a service on this machine)`,
    };
  }
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if (url.protocol !== 'http:' || allowInsecureHttp || isLoopbackHost(url.hostname)) return undefined;
  return {
    code: 'insecure_base_url',
    message:
      `${source} ${shorten(url.origin)} uses plain http, which would send the API key in clear over the network: use https. ` +
      'On a network you trust, allow it with --allow-insecure-http or AVATAR_VIDEO_ALLOW_INSECURE_HTTP=1.',
  };
}
