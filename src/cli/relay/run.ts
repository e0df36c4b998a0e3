/**
 * `avatar-video relay`, from checked settings to a running relay and back: the workers first (Redis must answer),
 * then the HTTP API, one line with its address, and on Ctrl-C or SIGTERM everything closed in the reverse order.
 */
import { once } from 'node:events';
import type { Session } from '../session.js';
import { checkAll, type Problem, UsageError } from '../usage-error.js';
import { startRelayHttp } from './http.js';
import { loadBullMQ } from './peers.js';
import { hostWarning, type RelayFlags, relaySettings } from './settings.js';
import { watchStore } from './watches.js';
import { type RelayLog, startRelayWorkers } from './workers.js';

/** How long a stop waits for the polls and deliveries in progress before it leaves them to the next relay. */
export const STOP_GRACE_MS = 2_000;

/** Run the relay until Ctrl-C or SIGTERM. @throws UsageError for what the user can fix (a variable, a flag, Redis, the port). */
export async function runRelay(flags: RelayFlags, session: Session): Promise<void> {
  const [settings, client] = await checkAll(
    () => relaySettings(flags, process.env),
    () => session.client(),
  );
  const bullmq = await loadBullMQ();
  const log = relayLog(session, [settings.token, settings.secret, process.env.AVATAR_VIDEO_API_KEY?.trim()]);
  const warning = hostWarning(settings.host);
  if (warning) session.warn(warning);
  const workers = await startRelayWorkers(bullmq, client, settings, log);
  const http = await startRelayHttp({ ...settings, store: watchStore(workers, log.scrub), log: log.line, scrub: log.scrub }).catch(
    async (error: unknown) => {
      await workers.close(0);
      const problem = listenProblem(error, settings.host, settings.port);
      throw problem ? new UsageError([problem]) : error;
    },
  );
  const stop = stopSignal(session.signal);
  try {
    session.result({ url: http.url, redis: settings.redis.shown, queues: settings.queues }, [
      `relay on ${http.url} (POST /watches, GET /watches/{id}), Redis ${settings.redis.shown}, queues ${settings.queues.watch} and ${settings.queues.delivery}: Ctrl-C stops it`,
    ]);
    if (!stop.signal.aborted) await once(stop.signal, 'abort');
  } finally {
    stop.dispose();
    await http.close();
    if (!(await workers.close(STOP_GRACE_MS))) {
      session.note('stopped with polls or deliveries in progress: BullMQ gives them to the next relay once their locks run out');
      // Their requests would hold the process open: what they were doing is in Redis, done again by the next worker.
      process.exit(0);
    }
  }
}

/** What the user can fix in a failed listen: the port taken, or not allowed; undefined for any other failure. */
function listenProblem(error: unknown, host: string, port: number): Problem | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const retry = 'pick another with --port (--port 0: any free one)';
  if (code === 'EADDRINUSE') return { code: 'port_in_use', message: `port ${port} on ${host} is in use by another program: ${retry}` };
  if (code === 'EACCES')
    return { code: 'port_not_allowed', message: `port ${port} on ${host} needs privileges this user does not have: ${retry}` };
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return { code: 'host', message: `--host ${host} is not an address of this machine` };
  return undefined;
}

/** Ctrl-C (the session's signal) or SIGTERM, which is how a service manager or a container stops the relay. */
function stopSignal(interrupt: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const terminated = new AbortController();
  const onTerm = () => terminated.abort(new Error('SIGTERM'));
  process.on('SIGTERM', onTerm);
  return { signal: AbortSignal.any([interrupt, terminated.signal]), dispose: () => process.off('SIGTERM', onTerm) };
}

/** Lines on stderr, with every secret of the run replaced wherever foreign text carries it. */
function relayLog(session: Session, secrets: Array<string | undefined>): RelayLog {
  const known = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 4);
  const scrub = (text: string) => known.reduce((clean, secret) => clean.split(secret).join('[redacted]'), text);
  return { line: (text) => session.note(scrub(text)), scrub };
}
