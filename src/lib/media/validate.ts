import { type MediaIssueCode, MediaValidationError, type MediaValidationIssue } from '../../errors.js';
import { checkOptions } from '../../internal/arguments.js';
import type { LocalSource } from '../../internal/byte-source.js';
import { shorten } from '../../internal/shorten.js';
import { VIDEO_MODELS } from '../../schemas.js';
import { checkParams, disposeAll, FILE_FIELDS, openInputs, type PreparedCreate, type VideoCreateParams } from './prepare.js';
import { ALLOWED, probeSource } from './probe.js';
import { FORMATS, type MediaInfo, type MediaLimits } from './types.js';

/** What local validation found; `warnings` carry the spec's quality advice, which never rejects. */
export interface ValidatedCreate {
  audio: MediaInfo;
  visual: MediaInfo;
  generationMode: 'image_to_video' | 'video_to_video';
  warnings: string[];
}

export type { MediaLimits };

/** @deprecated The same type as `MediaLimits` (of `avatar-video` and `avatar-video/media`), under its old name. */
export type ValidateOptions = MediaLimits;

/**
 * The API's limits on input durations, in seconds, as local validation applies them. `maxAudioSeconds` is the
 * default of the client's `limits.maxAudioSeconds`.
 */
export const LIMITS = {
  minAudioSeconds: 1,
  maxAudioSeconds: 60,
  minVideoSeconds: 10,
  maxVideoSeconds: 60,
} as const;

/** The create parameters, in the order their issues are reported. */
const KNOWN_FIELDS: readonly string[] = [...FILE_FIELDS, 'model'];
/** Below this many pixels on the short side the likeness suffers; advice only. */
const SMALL_IMAGE = 512;

/**
 * Check `videos.create` parameters locally, reading only headers, and report every problem at once.
 * Rejects with {@link MediaValidationError}.
 */
export async function validateCreateParams(params: VideoCreateParams, options?: MediaLimits): Promise<ValidatedCreate> {
  const method = 'validateCreateParams';
  const prepared = await prepareValidated(checkParams(method, params), checkOptions(method, options));
  await prepared.dispose();
  return prepared.result;
}

/** @internal Validate and keep the inputs open for upload, named and typed after their real format. */
export async function prepareValidated(
  params: VideoCreateParams,
  options: MediaLimits = {},
): Promise<PreparedCreate & { result: ValidatedCreate }> {
  const record = (params ?? {}) as unknown as Record<string, unknown>;
  const issues = structuralIssues(record);
  const sources = await openInputs(record);
  const dispose = () => disposeAll(sources);
  try {
    const infos = new Map<string, MediaInfo>();
    await Promise.all(
      [...sources].map(async ([field, source]) => {
        const found = await checkFile(field, source, options);
        if ('code' in found) issues.push(found);
        else infos.set(field, found);
      }),
    );
    const rank = (field: string) => (KNOWN_FIELDS.includes(field) ? KNOWN_FIELDS.indexOf(field) : KNOWN_FIELDS.length);
    if (issues.length > 0)
      throw invalid(
        issues.sort((a, b) => rank(a.field) - rank(b.field)),
        options,
      );
    const visualField = sources.has('video_reference') ? 'video_reference' : 'image_reference';
    const visual = infos.get(visualField)!;
    const files = [...sources].map(([field, source]) => {
      const { extension, contentType } = FORMATS[infos.get(field)!.format];
      return { field, source, filename: `${source.name.replace(/\.[^./\\]{1,5}$/, '') || 'upload'}.${extension}`, contentType };
    });
    const fields: Record<string, string> = typeof record.model === 'string' ? { model: record.model } : {};
    const result: ValidatedCreate = {
      audio: infos.get('audio_reference')!,
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

/**
 * The error for `issues`. Audio longer than one job takes adds the method that makes it to the message only: `issues`
 * are facts that callers word their own advice for (the CLI names its own command).
 */
function invalid(issues: MediaValidationIssue[], options: MediaLimits): MediaValidationError {
  const error = new MediaValidationError(issues);
  const max = options.maxAudioSeconds ?? LIMITS.maxAudioSeconds;
  if (issues.some((issue) => tooLongAudio.has(issue))) {
    // Set before anything reads the stack, which V8 writes with the message of its first read.
    const hint = `For audio over ${max} s, videos.generateLong makes the video in segments and joins them.`;
    error.message += `${issues.length === 1 ? '. ' : '\n'}${hint}`;
  }
  return error;
}

/** The issues that are audio over the limit (not under it), marked where the duration is known. */
const tooLongAudio = new WeakSet<MediaValidationIssue>();

function structuralIssues(params: Record<string, unknown>): MediaValidationIssue[] {
  const issues: MediaValidationIssue[] = [];
  const add = (field: string, code: MediaIssueCode, message: string) => issues.push({ field, code, message });
  const present = (field: string) => params[field] !== undefined && params[field] !== null;
  for (const key of Object.keys(params)) {
    if (!KNOWN_FIELDS.includes(key) && present(key))
      add(key, 'unknown_field', `${key} is not a create parameter; allowed: audio_reference, image_reference or video_reference, model`);
  }
  if (!present('audio_reference')) add('audio_reference', 'missing_audio', 'audio_reference is required: a WAV or MP3 file of speech');
  if (present('image_reference') && present('video_reference')) {
    add('video_reference', 'multiple_visual_references', 'send either image_reference or video_reference, not both');
  } else if (!present('image_reference') && !present('video_reference')) {
    const message = 'one visual reference is required: image_reference (JPEG or PNG) or video_reference (MP4 or MOV)';
    add('image_reference', 'missing_visual_reference', message);
  }
  if (present('model') && (typeof params.model !== 'string' || params.model === ''))
    add('model', 'unknown_field', `model must be a model name such as ${VIDEO_MODELS.join(' or ')}`);
  return issues;
}

/** The file's MediaInfo when it suits its field, else the issue with it. */
async function checkFile(field: string, source: LocalSource, options: MediaLimits): Promise<MediaInfo | MediaValidationIssue> {
  let info: MediaInfo;
  try {
    info = await probeSource(source, field);
  } catch (error) {
    if (error instanceof MediaValidationError && error.issues[0]) return { ...error.issues[0], field };
    throw error;
  }
  const what = `${FORMATS[info.format].name} ${info.kind}`;
  // Each file field takes the kind it is named after: audio_reference takes audio, and so on.
  if (info.kind !== field.split('_')[0]) {
    return { field, code: 'unsupported_format', message: `${shorten(source.name)} is ${what}; ${ALLOWED[field]}` };
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
    const message = `${shorten(source.name)} is ${formatSeconds(seconds, range)} of ${what}; ${range.what} must be ${range.min} to ${range.max} s`;
    const issue: MediaValidationIssue = { field, code: 'duration_out_of_range', message };
    if (field === 'audio_reference' && seconds > range.max) tooLongAudio.add(issue);
    return issue;
  }
  return info;
}

/** One decimal, unless that would print a bound the value actually misses (60.04 s must not read "60.0 s"). */
function formatSeconds(seconds: number, range: { min: number; max: number }): string {
  const short = seconds.toFixed(1);
  const collides = Number(short) >= range.min && Number(short) <= range.max;
  return `${collides ? seconds.toFixed(3) : short} s`;
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
        `${shorten(visualSource.name)} is only ${visual.width}x${visual.height}; output is 720p, and a sharper reference (at least ${SMALL_IMAGE} px on the short side) keeps the likeness better`,
      );
    }
    const ratio = Math.max(visual.width, visual.height) / short;
    if (ratio > 2.5) {
      warnings.push(
        `${shorten(visualSource.name)} is ${visual.width}x${visual.height}; output is 9:16 or 16:9, so most of this frame will be cropped`,
      );
    }
  }
  return warnings;
}
