import { MediaValidationError } from '../../errors.js';
import type { LocalSource } from '../../internal/source.js';
import { VIDEO_MODELS } from '../../schemas.js';
import { contentTypeFor, disposeAll, FILE_FIELDS, openInputs, type PreparedCreate, type VideoCreateParams } from './prepare.js';
import { probeSource } from './probe.js';
import type { MediaFormat, MediaInfo, MediaValidationIssue } from './types.js';

/** What local validation found; `warnings` carry the spec's quality advice, which never rejects. */
export interface ValidatedCreate {
  audio: MediaInfo;
  visual: MediaInfo;
  generationMode: 'image_to_video' | 'video_to_video';
  warnings: string[];
}

export interface ValidateOptions {
  /** Longest driving audio in seconds. @default 60 (the stricter of the spec's two statements) */
  maxAudioSeconds?: number;
}

/** Spec section 8. */
export const LIMITS = {
  minAudioSeconds: 1,
  maxAudioSeconds: 60,
  minVideoSeconds: 10,
  maxVideoSeconds: 60,
} as const;

const KNOWN_FIELDS = new Set<string>([...FILE_FIELDS, 'model']);
const EXTENSION: Record<MediaFormat, string> = { wav: 'wav', mp3: 'mp3', jpeg: 'jpg', png: 'png', mp4: 'mp4', mov: 'mov' };
const LABEL: Record<MediaFormat, string> = { wav: 'WAV', mp3: 'MP3', jpeg: 'JPEG', png: 'PNG', mp4: 'MP4', mov: 'MOV' };
const EXPECTED = {
  audio_reference: { kind: 'audio', allowed: 'audio must be WAV or MP3' },
  image_reference: { kind: 'image', allowed: 'an image reference must be JPEG or PNG' },
  video_reference: { kind: 'video', allowed: 'a video reference must be MP4 or MOV with a video track' },
} as const;
/** Below this many pixels on the short side the likeness suffers; advice only. */
const SMALL_IMAGE = 512;

/**
 * Check `videos.create` parameters locally, reading only headers, and report every problem at once.
 * Rejects with {@link MediaValidationError}.
 */
export async function validateCreateParams(params: VideoCreateParams, options: ValidateOptions = {}): Promise<ValidatedCreate> {
  const prepared = await prepareValidated(params, options);
  await prepared.dispose();
  return prepared.result;
}

/** @internal Validate and keep the inputs open for upload, named and typed after their real format. */
export async function prepareValidated(
  params: VideoCreateParams,
  options: ValidateOptions = {},
): Promise<PreparedCreate & { result: ValidatedCreate }> {
  const record = (params ?? {}) as unknown as Record<string, unknown>;
  const issues = structuralIssues(record);
  const sources = await openInputs(record);
  const dispose = () => disposeAll(sources);
  try {
    const infos = new Map<string, MediaInfo>();
    await Promise.all(
      [...sources].map(async ([field, source]) => {
        const found = await checkFile(field as keyof typeof EXPECTED, source, options);
        if ('issue' in found) issues.push(found.issue);
        else infos.set(field, found.info);
      }),
    );
    if (issues.length > 0) throw new MediaValidationError(sortIssues(issues));
    const visualField = sources.has('video_reference') ? 'video_reference' : 'image_reference';
    const audio = infos.get('audio_reference')!;
    const visual = infos.get(visualField)!;
    const files = [...sources].map(([field, source]) => {
      const format = infos.get(field)!.format;
      return { field, source, filename: renamed(source.name, format), contentType: contentTypeFor(EXTENSION[format]) };
    });
    const fields: Record<string, string> = {};
    if (typeof record.model === 'string') fields.model = record.model;
    const result: ValidatedCreate = {
      audio,
      visual,
      generationMode: visualField === 'video_reference' ? 'video_to_video' : 'image_to_video',
      warnings: warningsFor(record, sources.get(visualField)!, visual),
    };
    return { files, fields, dispose, result };
  } catch (error) {
    await dispose();
    throw error;
  }
}

function structuralIssues(params: Record<string, unknown>): MediaValidationIssue[] {
  const issues: MediaValidationIssue[] = [];
  const present = (field: string) => params[field] !== undefined && params[field] !== null;
  for (const key of Object.keys(params)) {
    if (!KNOWN_FIELDS.has(key) && present(key)) {
      issues.push({
        field: key,
        code: 'unknown_field',
        message: `${key} is not a create parameter; allowed: audio_reference, image_reference or video_reference, model`,
      });
    }
  }
  if (!present('audio_reference')) {
    issues.push({ field: 'audio_reference', code: 'missing_audio', message: 'audio_reference is required: a WAV or MP3 file of speech' });
  }
  if (present('image_reference') && present('video_reference')) {
    issues.push({
      field: 'video_reference',
      code: 'multiple_visual_references',
      message: 'send either image_reference or video_reference, not both',
    });
  } else if (!present('image_reference') && !present('video_reference')) {
    issues.push({
      field: 'image_reference',
      code: 'missing_visual_reference',
      message: 'one visual reference is required: image_reference (JPEG or PNG) or video_reference (MP4 or MOV)',
    });
  }
  if (present('model') && (typeof params.model !== 'string' || params.model === '')) {
    issues.push({ field: 'model', code: 'unknown_field', message: `model must be a model name such as ${VIDEO_MODELS.join(' or ')}` });
  }
  return issues;
}

async function checkFile(
  field: keyof typeof EXPECTED,
  source: LocalSource,
  options: ValidateOptions,
): Promise<{ info: MediaInfo } | { issue: MediaValidationIssue }> {
  let info: MediaInfo;
  try {
    info = await probeSource(source, field);
  } catch (error) {
    if (error instanceof MediaValidationError && error.issues[0]) return { issue: { ...error.issues[0], field } };
    throw error;
  }
  const expected = EXPECTED[field];
  if (info.kind !== expected.kind) {
    return { issue: { field, code: 'unsupported_format', message: `${source.name} is ${describe(info)}; ${expected.allowed}` } };
  }
  const range =
    field === 'audio_reference'
      ? { min: LIMITS.minAudioSeconds, max: options.maxAudioSeconds ?? LIMITS.maxAudioSeconds, what: 'audio' }
      : field === 'video_reference'
        ? { min: LIMITS.minVideoSeconds, max: LIMITS.maxVideoSeconds, what: 'a video reference' }
        : undefined;
  const seconds = info.durationSeconds;
  // A tiny tolerance absorbs float noise only, never a real overrun.
  if (range && seconds !== undefined && (seconds < range.min - 1e-6 || seconds > range.max + 1e-6)) {
    return {
      issue: {
        field,
        code: 'duration_out_of_range',
        message: `${source.name} is ${formatSeconds(seconds, range)} of ${LABEL[info.format]} ${info.kind}; ${range.what} must be ${range.min} to ${range.max} s`,
      },
    };
  }
  return { info };
}

function describe(info: MediaInfo): string {
  return `${LABEL[info.format]} ${info.kind}`;
}

/** One decimal, unless that would print a bound the value actually misses (60.04 s must not read "60.0 s"). */
function formatSeconds(seconds: number, range: { min: number; max: number }): string {
  const short = seconds.toFixed(1);
  const collides = Number(short) >= range.min && Number(short) <= range.max;
  return `${collides ? seconds.toFixed(3) : short} s`;
}

function renamed(name: string, format: MediaFormat): string {
  const stem = name.replace(/\.[^./\\]{1,5}$/, '') || 'upload';
  return `${stem}.${EXTENSION[format]}`;
}

function warningsFor(params: Record<string, unknown>, visualSource: LocalSource, visual: MediaInfo): string[] {
  const warnings: string[] = [];
  if (typeof params.model === 'string' && params.model && !(VIDEO_MODELS as readonly string[]).includes(params.model)) {
    warnings.push(`model ${params.model} is not one this SDK knows (${VIDEO_MODELS.join(', ')}); it is sent as given`);
  }
  if (visual.width !== undefined && visual.height !== undefined) {
    const short = Math.min(visual.width, visual.height);
    if (short < SMALL_IMAGE) {
      warnings.push(
        `${visualSource.name} is only ${visual.width}x${visual.height}; output is 720p, and a sharper reference (at least ${SMALL_IMAGE} px on the short side) keeps the likeness better`,
      );
    }
    const ratio = Math.max(visual.width, visual.height) / short;
    if (ratio > 2.5) {
      warnings.push(
        `${visualSource.name} is ${visual.width}x${visual.height}; output is 9:16 or 16:9, so most of this frame will be cropped`,
      );
    }
  }
  return warnings;
}

const ORDER = ['audio_reference', 'image_reference', 'video_reference', 'model'];
function sortIssues(issues: MediaValidationIssue[]): MediaValidationIssue[] {
  const rank = (field: string) => (ORDER.includes(field) ? ORDER.indexOf(field) : ORDER.length);
  return [...issues].sort((a, b) => rank(a.field) - rank(b.field));
}
