import type * as Undici from 'undici';
import { lazyRequire } from './lazy.js';

const undici = lazyRequire<typeof Undici>('undici');

/** Whether this runtime's undici has the dispatcher the SDK drives (Bun's own partial copy has none). */
export function undiciDispatches(): boolean {
  return typeof undici().Agent.prototype.dispatch === 'function';
}
