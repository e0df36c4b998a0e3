import type { Experimental_VideoModelV4CallOptions as CallOptions, SharedV4Warning } from '@ai-sdk/provider';

/** The orientation the service resolves from a visual reference of this size (the spec: 9:16 or 16:9 at 720p). */
export function resolvedAspectRatio(width: number | undefined, height: number | undefined): '9:16' | '16:9' | undefined {
  if (!width || !height) return undefined;
  return height > width ? '9:16' : '16:9';
}

const RESOLUTION = { '9:16': '720x1280', '16:9': '1280x720' } as const;

/** The settings of a call this model cannot honour, one warning each: a job takes only an audio and a visual reference. */
export function unsupportedSettings(options: CallOptions, aspectRatio: '9:16' | '16:9' | undefined): SharedV4Warning[] {
  const warnings: SharedV4Warning[] = [];
  const unsupported = (feature: string, details: string) => warnings.push({ type: 'unsupported', feature, details });
  if (options.prompt?.trim()) unsupported('prompt', 'A text prompt is ignored: the driving audio decides what is said.');
  if (options.duration !== undefined) unsupported('duration', 'The video lasts as long as the driving audio.');
  if (options.fps !== undefined) unsupported('fps', 'The service chooses the frame rate.');
  if (options.seed !== undefined) unsupported('seed', 'Generation cannot be seeded.');
  if (options.generateAudio !== undefined) unsupported('generateAudio', 'The video carries the driving audio.');
  if (options.frameImages?.some((frame) => frame.frameType === 'last_frame')) {
    unsupported('frameImages', 'A last frame is ignored: only the visual reference (the first frame) is used.');
  }
  const ratio = options.aspectRatio;
  if (ratio !== undefined && ratio !== 'adaptive' && ratio !== aspectRatio) {
    unsupported('aspectRatio', `The aspect ratio is resolved from the visual reference${aspectRatio ? ` (${aspectRatio} here)` : ''}.`);
  }
  const size = options.resolution;
  if (size !== undefined && (aspectRatio === undefined || size !== RESOLUTION[aspectRatio])) {
    unsupported(
      'resolution',
      `The video is 720p in the reference's orientation${aspectRatio ? ` (${RESOLUTION[aspectRatio]} here)` : ''}.`,
    );
  }
  return warnings;
}
