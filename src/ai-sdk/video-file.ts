import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AvatarVideo, Video } from 'avatar-video';

/**
 * A COMPLETE video's MP4 as `videos.download` saves it (resumed if dropped, its length and MP4 structure checked), read
 * back into memory: the AI SDK returns whole files, and this keeps one download path with one check.
 */
export async function checkedVideoBytes(client: AvatarVideo, video: Video, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'avatar-video-ai-sdk-'));
  try {
    const { path } = await client.videos.download(video, join(dir, `${video.id}.mp4`), { signal });
    return new Uint8Array(await readFile(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
