/** The Redis both scripts use: REDIS_HOST and REDIS_PORT (default 127.0.0.1:6379), or REDIS_SOCKET, a Unix socket's path. */
export const connection = process.env.REDIS_SOCKET
  ? { path: process.env.REDIS_SOCKET }
  : { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };

/** The queue's name. */
export const QUEUE = 'videos';
