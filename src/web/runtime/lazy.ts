import * as encoder from 'form-data-encoder';
import * as formData from 'formdata-node';
import * as zod from 'zod';
import type * as Node from '../../internal/lazy.js';
import { once } from '../../internal/once.js';

// The web build's internal/lazy.ts (tsup.config.ts): no `require` there, so the packages the shared code loads
// lazily on Node are imported up front, and the web entry loads only these.

export { once };

/** The packages the shared code reaches on the web: zod for the answers, the multipart encoder for uploads. */
const PACKAGES: Record<string, unknown> = { zod, 'form-data-encoder': encoder, 'formdata-node': formData };

export const lazyRequire: typeof Node.lazyRequire = <T>(name: string) =>
  once(() => {
    if (!(name in PACKAGES)) throw new Error(`${name} is not part of avatar-video's web entry.`);
    return PACKAGES[name] as T;
  });
