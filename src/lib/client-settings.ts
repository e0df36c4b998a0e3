import { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import { isLogLevel, type Logger, leveledLogger } from '../internal/logger.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { MediaLimits } from './media/validate.js';

/** The options the Node and the web entry's clients read alike. */
interface SharedOptions extends Omit<RequestOptions, 'signal'> {
  logger?: Logger | undefined;
  limits?: MediaLimits | undefined;
  jobConcurrency?: 'auto' | number | undefined;
}

/**
 * What both entries' clients make of their options, so each default is set in one place: the request defaults, the
 * media limits, the one limiter of jobs running at once, and the logger at `level` (`'warn'` unless a known level).
 */
export function clientSettings(options: SharedOptions, level: unknown) {
  return {
    timeout: options.timeout ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
    maxRetryDelay: options.maxRetryDelay ?? 60_000,
    limits: { maxAudioSeconds: options.limits?.maxAudioSeconds ?? 60 },
    limiter: new ConcurrencyLimiter({ concurrency: options.jobConcurrency }),
    logger: leveledLogger(options.logger ?? console, isLogLevel(level) ? level : 'warn'),
  };
}
