import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { AvatarVideo } from '../../index.js';
import { formatBytes } from '../format.js';
import { checkOutputFile } from '../inputs.js';
import type { Session } from '../session.js';
import { startEmbeddedMock } from './mock.js';

/**
 * The sample media shipped in the package's samples/ folder (package.json `files`): examples/media's drawn portrait,
 * and the first 4.2 s of its speech at 11 kHz (92 kB), so that the package stays small.
 */
const SAMPLES = { audio: 'speech.wav', image: 'portrait.png' };

export function registerDemo(program: Command, session: Session): void {
  program
    .command('demo')
    .description('make a video from the sample media shipped with avatar-video, through the embedded mock: no key, no account')
    .option('-o, --output <file>', 'where to save the MP4', 'avatar-video-demo.mp4')
    .option('-f, --force', 'replace the output file if it exists (default: refuse)')
    .action(async (flags: { output: string; force?: boolean }) => {
      await checkOutputFile(flags.output, flags.force === true);
      const samples = sampleFolder();
      const mock = await startEmbeddedMock(0, session.command);
      // The mock's own key and address: the environment's, if any, are for the real service and stay unused.
      const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
      try {
        const saved = await client.videos.generate(
          { audio_reference: join(samples, SAMPLES.audio), image_reference: join(samples, SAMPLES.image) },
          {
            output: flags.output,
            signal: session.signal,
            // No job is tracked: a job on a mock that ends with this command is nothing to resume.
            onProgress: (video) => session.progress.update('render', video.progress ?? 0, 100, video.status),
            onUploadProgress: ({ bytes, total }) => session.progress.update('upload', bytes, total),
            onDownloadProgress: ({ bytes, total }) => session.progress.update('download', bytes, total),
          },
        );
        session.result({ ...saved, samples }, [`saved ${saved.path} (${formatBytes(saved.bytes)}) from video ${saved.video.id}`]);
        for (const line of nextSteps(session.command, samples)) session.note(line);
      } finally {
        await client.close();
        await mock.close();
      }
    });
}

/**
 * The package's samples folder: beside dist/ in an install (the command's chunks are all in dist/), at the
 * repository's root from the sources.
 */
function sampleFolder(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)), up = 0; up < 4; dir = dirname(dir), up++) {
    const folder = join(dir, 'samples');
    if (Object.values(SAMPLES).every((name) => existsSync(join(folder, name)))) return folder;
  }
  throw new Error(
    'The sample media (samples/speech.wav, samples/portrait.png) is missing from this install of avatar-video: reinstall it.',
  );
}

/** What the demo did not show: where a real key and address come from, and the same video from the real service. */
function nextSteps(command: string, samples: string): string[] {
  return [
    'That video came from the embedded mock: no key, and nothing left this machine. To make a real one:',
    "  1. create an API key in the service's platform dashboard, and note the service's address (its base URL)",
    '  2. export AVATAR_VIDEO_API_KEY=<your key>',
    '     export AVATAR_VIDEO_BASE_URL=<the service address, e.g. https://api.example.com>',
    `  3. ${command} generate --audio <your speech.wav or .mp3, 1 to 60 s> --image <a portrait, JPEG or PNG>`,
    `The sample media is in ${samples}; for the same in code, see the Quickstart in the README.`,
  ];
}
