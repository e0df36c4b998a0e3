/**
 * Streaming a finished video into an HTTP response, without touching the disk: `content` gives the
 * MP4 as a Node stream (the redirect to the file's host already followed, without your key), which
 * `pipeline` sends on with backpressure. The same works for an S3 upload or any other writable.
 *
 *   npx tsx examples/stream-to-http.ts
 */
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import AvatarVideo, { NotFoundError, VideoNotReadyError } from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

// Your server: GET /videos/<id>.mp4 streams that video to the browser.
const server = createServer(async (req, res) => {
  const id = /^\/videos\/([\w-]+)\.mp4$/.exec(req.url ?? '')?.[1];
  if (!id) return void res.writeHead(404).end();
  const stopped = new AbortController();
  res.on('close', () => stopped.abort()); // the browser went away: stop fetching too
  try {
    const video = await client.videos.retrieve(id, { signal: stopped.signal });
    if (video.status !== 'COMPLETE') throw new VideoNotReadyError(video);
    const content = await client.videos.content(id, { signal: stopped.signal });
    res.writeHead(200, {
      'content-type': content.contentType ?? 'video/mp4',
      ...(content.contentLength !== undefined && { 'content-length': String(content.contentLength) }),
    });
    await pipeline(content.body, res);
  } catch (error) {
    if (res.headersSent) return void res.destroy(); // mid-body: the browser sees a cut connection
    const status = error instanceof NotFoundError ? 404 : error instanceof VideoNotReadyError ? 409 : 502;
    res.writeHead(status).end();
  }
});

try {
  const { video } = await client.videos.generate(
    { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) },
    { output: 'stream-to-http.mp4' },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  // Play the browser.
  const response = await fetch(`http://127.0.0.1:${port}/videos/${video.id}.mp4`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  console.log(`GET /videos/${video.id}.mp4 -> ${response.status} ${response.headers.get('content-type')}, ${bytes.length} bytes`);
  const missing = await fetch(`http://127.0.0.1:${port}/videos/vid_missing.mp4`);
  console.log(`GET /videos/vid_missing.mp4 -> ${missing.status}`);
} finally {
  server.close();
  await client.close();
  await mock?.close();
}
