/** Where the SDK writes its log lines. `console` fits; so do pino and winston loggers. */
export interface Logger {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && value in ORDER;
}

/** A logger that drops lines below `level`. Callers pass only redacted data. */
export function leveledLogger(logger: Logger, level: LogLevel): Logger {
  const at = (wanted: Exclude<LogLevel, 'off'>) =>
    ORDER[wanted] >= ORDER[level]
      ? (message: string, ...rest: unknown[]) => logger[wanted](`[avatar-video] ${message}`, ...rest)
      : () => {};
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
