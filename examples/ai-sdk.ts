/**
 * The Vercel AI SDK: an avatar video from `experimental_generateVideo`, saved as an MP4.
 *
 *   npx tsx examples/ai-sdk.ts
 *
 * With AVATAR_VIDEO_API_KEY and AVATAR_VIDEO_BASE_URL set, it talks to that service (the default `avatarVideo`
 * provider reads them); otherwise it starts the SDK's embedded mock server, so it runs with no account.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { experimental_generateVideo as generateVideo } from 'ai';
import AvatarVideo from 'avatar-video';
import { avatarVideo, createAvatarVideo } from 'avatar-video/ai-sdk';
import { startMockServer } from 'avatar-video/testing';

const media = (name: string) => readFile(new URL(`./media/${name}`, import.meta.url));

async function main() {
  const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer();
  const client = mock ? new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL }) : undefined;
  const provider = client ? createAvatarVideo({ client }) : avatarVideo;
  try {
    const { video, warnings, providerMetadata } = await generateVideo({
      model: provider('service-avatar-x'),
      // The inputs are told apart by their bytes: the portrait is the visual reference, the WAV drives it.
      prompt: { image: await media('portrait.png') },
      inputReferences: [await media('speech.wav')],
      // The AI SDK never retries this provider's errors; a create is never sent twice.
      providerOptions: { avatarVideo: { waitTimeout: 120_000 } },
    });
    await writeFile('out.mp4', video.uint8Array);
    console.log(`saved out.mp4 (${video.uint8Array.length} bytes, ${video.mediaType})`, providerMetadata.avatarVideo);
    for (const warning of warnings) console.log('warning:', warning);
  } finally {
    await client?.close();
    await mock?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
