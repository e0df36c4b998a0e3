/**
 * A process of its own that downloads one video with a client made from the environment alone (no dispatcher), so
 * what Node reads at start (NODE_EXTRA_CA_CERTS) applies. Args: base URL, video id, output path. The key comes from
 * AVATAR_VIDEO_API_KEY. Prints the result, or the error's name, code and message, as one JSON line.
 */
import { AvatarVideo } from '../../src/index.js';

const [baseURL, videoId, output] = process.argv.slice(2) as [string, string, string];
const client = new AvatarVideo({ baseURL, logLevel: 'off', maxRetries: 0 });
try {
  const result = await client.videos.download(videoId, output);
  process.stdout.write(`${JSON.stringify({ ok: true, bytes: result.bytes })}\n`);
} catch (error) {
  const { name, message, code } = error as Error & { code?: string };
  process.stdout.write(`${JSON.stringify({ ok: false, name, code, message })}\n`);
} finally {
  await client.close();
}
