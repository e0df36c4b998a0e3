/**
 * A benchmark child's warm-up: one video made on a mock of its own before the measured run, so that the run sees
 * a process in its steady state (modules loaded, code compiled), as a long-lived host is. bench/import.ts measures
 * the cold start itself. The parent sets WARM_UP to `{ baseURL, apiKey, audio, image }`; without it, nothing is done.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AvatarVideo } from '../../src/index.js';

export interface WarmUpTarget {
  baseURL: string;
  apiKey: string;
  audio: string;
  image: string;
}

export async function warmUp(target: string | undefined = process.env.WARM_UP): Promise<void> {
  if (!target) return;
  const { baseURL, apiKey, audio, image } = JSON.parse(target) as WarmUpTarget;
  const client = new AvatarVideo({ baseURL, apiKey, logLevel: 'off' });
  const dir = await mkdtemp(join(tmpdir(), 'warm-up-'));
  try {
    await client.videos.generate(
      { audio_reference: audio, image_reference: image },
      { output: join(dir, 'warm-up.mp4'), jobLimit: 'external' },
    );
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}
