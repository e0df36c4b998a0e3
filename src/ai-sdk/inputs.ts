import type { Experimental_VideoModelV4CallOptions as CallOptions, Experimental_VideoModelV4File as VideoFile } from '@ai-sdk/provider';
import { InvalidArgumentError, toFile, type VideoCreateParams } from 'avatar-video';
import { probeMedia } from '../lib/media/probe.js';
import type { MediaInfo } from '../lib/media/types.js';

/** The create parameters a call's files make, and the visual reference's measured size. */
export interface SortedInputs {
  params: Omit<VideoCreateParams, 'model'>;
  visual: MediaInfo;
}

const ARGUMENT = 'inputReferences';

/** A file's bytes; a URL is refused, as the API takes uploads only and fetching a caller's URL is the caller's risk. */
function bytesOf(file: VideoFile, where: string): Uint8Array {
  if (file.type === 'url') {
    throw new InvalidArgumentError(
      where,
      `${where} is a URL (${new URL(file.url).origin}): avatar-video/ai-sdk takes files only, as the API takes uploads. Fetch it yourself and pass the bytes.`,
    );
  }
  return typeof file.data === 'string' ? Buffer.from(file.data, 'base64') : file.data;
}

/**
 * The call's files (`prompt.image` and `inputReferences`) sorted by what their bytes are, never their declared type:
 * the audio drives the video, the image or video is its visual reference. Exactly one of each is needed.
 */
export async function sortInputs(options: Pick<CallOptions, 'image' | 'inputReferences'>): Promise<SortedInputs> {
  const files = [
    ...(options.image ? [{ file: options.image, where: 'prompt.image' }] : []),
    ...(options.inputReferences ?? []).map((file, index) => ({ file, where: `${ARGUMENT}[${index}]` })),
  ];
  const probed = await Promise.all(
    files.map(async ({ file, where }) => {
      const data = bytesOf(file, where);
      return { data, where, info: await probeMedia(data, { fieldName: where }) };
    }),
  );
  const audio = probed.filter(({ info }) => info.kind === 'audio');
  const visual = probed.filter(({ info }) => info.kind !== 'audio');
  if (audio.length !== 1 || visual.length !== 1) {
    throw new InvalidArgumentError(
      ARGUMENT,
      `A video needs one driving audio (WAV or MP3, in inputReferences) and one visual reference (prompt.image, or an image or video in inputReferences); this call has ${audio.length} audio and ${visual.length} visual.`,
    );
  }
  const [speech, look] = [audio[0], visual[0]] as [(typeof probed)[number], (typeof probed)[number]];
  const named = (entry: typeof speech, field: string) => toFile(entry.data, `${field}.${entry.info.format}`);
  const params =
    look.info.kind === 'video'
      ? { audio_reference: named(speech, 'audio'), video_reference: named(look, 'reference') }
      : { audio_reference: named(speech, 'audio'), image_reference: named(look, 'reference') };
  return { params, visual: look.info };
}
