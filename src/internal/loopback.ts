/** Hosts the SDK accepts over plain http without being asked: the key never leaves the machine. */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether `hostname` (as `URL.hostname` gives it) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
