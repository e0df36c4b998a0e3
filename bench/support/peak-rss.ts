import { readFileSync } from 'node:fs';

/**
 * Peak resident memory of this process, in bytes. Linux's `ru_maxrss` (Node's `resourceUsage().maxRSS`) survives
 * `exec`, so a child spawned by a parent holding 300 MB reports at least 300 MB whatever it does itself; `VmHWM`
 * belongs to the address space the child runs in. Other systems fall back to `maxRSS`.
 */
export function peakRssBytes(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}
