/**
 * ffprobe, the independent reader the e2e tests ask whether a saved MP4 plays: required under CI=true (.ci/run installs
 * Debian's ffmpeg), a skip with the reason elsewhere.
 */
import { expect, type TestContext } from 'vitest';
import { findCommand, runCommand } from './system-command.js';

/** How to get it, for the message of a check that cannot run without it. */
export const FFPROBE_INSTALL_HINT =
  'install ffmpeg, which brings ffprobe (Debian/Ubuntu: sudo apt-get install ffmpeg; macOS: brew install ffmpeg)';

/** The streams ffprobe sees in `path`; rejects (with the install hint) when there is no ffprobe. */
export async function probeStreams(path: string): Promise<Array<{ codec_type: string; codec_name?: string }>> {
  const command = findCommand('ffprobe');
  if (command === undefined) throw new Error(`no ffprobe on PATH: ${FFPROBE_INSTALL_HINT}`);
  const output = await runCommand(command, ['-v', 'error', '-print_format', 'json', '-show_streams', path]);
  return (JSON.parse(output) as { streams: Array<{ codec_type: string; codec_name?: string }> }).streams;
}

/**
 * Expect ffprobe to find a video stream in `path`. Without ffprobe: under CI=true the test fails with the install
 * hint; elsewhere it is skipped with that reason (after everything it checked before this).
 */
export async function expectPlayableMp4(context: TestContext, path: string): Promise<void> {
  if (findCommand('ffprobe') === undefined && process.env.CI !== 'true') {
    context.skip(`no ffprobe to read ${path}; ${FFPROBE_INSTALL_HINT}`);
  }
  const streams = await probeStreams(path);
  expect(streams.map((stream) => stream.codec_type)).toContain('video');
}
