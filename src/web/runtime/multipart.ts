import type * as Node from '../../internal/multipart.js';
import { multipartBody } from '../../internal/multipart-body.js';

// The web build's internal/multipart.ts (tsup.config.ts): the body's chunks as they are, which fetch sends.

export const encodeMultipart = (async (files, fields, onProgress) => {
  const { body, headers } = multipartBody(files, fields, onProgress);
  return { stream: body, headers };
}) as typeof Node.encodeMultipart;
