import type * as Zod from 'zod';
import { lazyRequire, once } from '../internal/lazy.js';
import type { Schema } from '../schemas.js';

const zod = lazyRequire<typeof Zod>('zod');

/**
 * avatar-video/proxy's answer to `GET .../v1/videos/{id}/content` asked with `accept: application/json`: the signed
 * address the API redirected to, in a form a page can read (a redirect's `Location` is hidden from it).
 */
export const signedAddressSchema: Schema<{ url: string }> = once(() => zod().object({ url: zod().url() }));
