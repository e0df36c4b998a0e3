/**
 * Listing videos: one page at a time, or every video with `for await` (pages are fetched as you go).
 *
 *   npx tsx examples/list-videos.ts
 */
import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
const client = new AvatarVideo(mock ? { apiKey: mock.apiKey, baseURL: mock.baseURL } : {});

try {
  if (mock) {
    // Give the empty mock something to list.
    const params = { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) };
    for (let i = 0; i < 5; i++) await client.videos.create(params);
  }

  // One page: await the call.
  const page = await client.videos.list({ limit: 2 });
  console.log(`first page: ${page.data.map((video) => video.id).join(', ')} (more may follow: ${page.hasNextPage()})`);

  // Every video: iterate the call. Stop whenever you like; no further page is requested.
  // `order: 'asc'` walks oldest first; `after: id` starts strictly after that video.
  const counts = new Map<string, number>();
  for await (const video of client.videos.list({ limit: 2, order: 'asc' })) {
    counts.set(video.status, (counts.get(video.status) ?? 0) + 1);
  }
  console.log('by status:', Object.fromEntries(counts));
} finally {
  await client.close();
  await mock?.close();
}
