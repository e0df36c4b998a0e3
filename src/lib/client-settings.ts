import { ConcurrencyLimiter } from '../internal/concurrency-limiter.js';
import { CreateGate } from '../internal/create-gate.js';
import type { CreateRate } from '../internal/create-rate.js';
import { isLogLevel, type Logger, leveledLogger } from '../internal/logger.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { MediaLimits } from './media/validate.js';

/** The options the Node and the web entry's clients read alike. */
interface SharedOptions extends Omit<RequestOptions, 'signal'> {
  logger?: Logger | undefined;
  limits?: MediaLimits | undefined;
  jobConcurrency?: 'auto' | number | undefined;
  createRate?: CreateRate | undefined;
  billingIncrementSeconds?: number | undefined;
}

/**
 * What both entries' clients make of their options, so each default is set in one place: the request defaults, the
 * media limits, the one limiter of jobs running at once, the declared create rate (the option, else the
 * environment's `envRate`) and the one gate in front of creates that keeps to it (or learns one), the billing step, and the logger at `level` (`'warn'` unless a known level).
 */
export function clientSettings(options: SharedOptions, level: unknown, envRate?: CreateRate) {
  const createRate = options.createRate ?? envRate;
  return {
    timeout: options.timeout ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
    maxRetryDelay: options.maxRetryDelay ?? 60_000,
    limits: { maxAudioSeconds: options.limits?.maxAudioSeconds ?? 60 },
    limiter: new ConcurrencyLimiter({ concurrency: options.jobConcurrency }),
    createRate,
    createGate: new CreateGate({ declared: createRate }),
    billingIncrementSeconds: options.billingIncrementSeconds ?? 6,
    logger: leveledLogger(options.logger ?? console, isLogLevel(level) ? level : 'warn'),
  };
}
