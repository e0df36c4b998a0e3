/** The proxy's own answers, in the API's error shape (`{"error": {"code", "message"}}`), so a client reads them alike. */
export function errorAnswer(status: number, code: string, message: string): Response {
  return jsonAnswer(status, { error: { code, message } });
}

/** The answer to anything but the four routes: any other path, any other method (TRACE included). */
export const notRouted = (): Response => errorAnswer(404, 'not_found', 'The proxy forwards only the video API routes.');

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * A body read whole as text, at most `limit` bytes: undefined when it is larger (the rest is not read). For the small
 * answers the proxy must look into: a created video, an error.
 */
export async function readText(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | undefined> {
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}
