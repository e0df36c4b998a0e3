import type * as Zod from 'zod';

// Schemas of the API's resources. They are loose on purpose: unknown fields are kept, and a status or model the
// SDK does not know yet is accepted as a string, so a server that grows new values does not break deployed clients.

/**
 * Known states of a video job: the spec's four, and `QUEUED`, which the service's own docs list before `PROCESSING`
 * for some jobs. Editors complete the five; a status the service adds later is still accepted as a string. Only
 * COMPLETE, FAILED and CANCELLED are final: treat any other status, known or not, as "not finished yet".
 */
export type VideoStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETE' | 'FAILED' | 'CANCELLED' | (string & {});
/** Known model names. `service-video-1-latest` is a moving alias. */
export type VideoModel = 'service-avatar-x' | 'service-video-1-latest' | (string & {});

export const VIDEO_STATUSES = ['QUEUED', 'PROCESSING', 'COMPLETE', 'FAILED', 'CANCELLED'] as const;
export const VIDEO_MODELS = ['service-avatar-x', 'service-video-1-latest'] as const;

/**
 * A response schema, built at its first call from the zod it is given: the transport loads zod (through the platform)
 * for the first answer the fast path does not take, not at import (bench/import.ts), and on the web in a lazy chunk.
 * `accepts` is a cheaper check of the common valid answer, taken as is when it passes; anything it does not pass goes
 * to the zod schema, which stays the rules (a property test holds the two equal: test/policies/schemas-fast-path.test.ts).
 */
export type Schema<T> = ((zod: typeof Zod) => Zod.ZodType<T>) & { readonly accepts?: (value: unknown) => value is T };

/** A schema built once, at its first use, from the zod module it is given. */
function schema<T>(build: (zod: typeof Zod) => Zod.ZodType<T>, accepts?: (value: unknown) => value is T): Schema<T> {
  let built: Zod.ZodType<T> | undefined;
  const made = (zod: typeof Zod) => {
    built ??= build(zod);
    return built;
  };
  return accepts ? Object.assign(made, { accepts }) : made;
}

/** Why a job failed (`video.error`). */
export type VideoError = {
  /** Machine-readable error code, e.g. a rate-limit code. */
  code: string;
  /** Human-readable explanation. */
  message: string;
};

/**
 * A video job, as returned by create, retrieve and list.
 *
 * The type lists the API's documented fields, so a misspelt field does not compile. At runtime the object also
 * keeps any field the service adds later (it survives `JSON.stringify`); read one with a cast, e.g.
 * `(video as Record<string, unknown>).new_field`.
 */
export type Video = {
  /** Job identifier. Taken from `video_id` when the service sends only that. */
  id: string;
  /** Object kind, `video`. */
  object?: string | undefined;
  /**
   * Current state: QUEUED (waiting to start), PROCESSING, or the final COMPLETE, FAILED or CANCELLED. Other strings
   * may appear in future; a wait treats them as not finished.
   */
  status: VideoStatus;
  /** Creation time, Unix seconds. */
  created_at: number;
  /** When processing completed, Unix seconds. */
  completed_at?: number | null | undefined;
  /** Progress percentage, 0 to 100. */
  progress?: number | null | undefined;
  /** Why the job failed; set when status is FAILED. */
  error?: VideoError | null | undefined;
  /** Model used (generation only). */
  model?: VideoModel | null | undefined;
  /** Mode resolved from the inputs: `image_to_video` or `video_to_video`. */
  generation_mode?: string | null | undefined;
  /** Output aspect ratio resolved from the visual reference: `9:16` or `16:9`. */
  aspect_ratio?: string | null | undefined;
  /** The captioned input video (captioning only). */
  source_video_id?: string | null | undefined;
  /** Caption style template (captioning only). */
  caption_template_id?: string | null | undefined;
  /**
   * A link to share the finished video, which the service's docs show and the spec does not name. A value that is
   * not a string (or null) is dropped rather than failing the answer: the field is not part of the spec.
   */
  share_link_url?: string | null | undefined;
  /**
   * Same as `id`.
   * @deprecated Use `id`. Accepted when absent, so its eventual removal does not break clients.
   */
  video_id?: string | undefined;
};

/**
 * The service's own OpenAPI examples carry `video_id` without `id`: take `id` from `video_id` then, so
 * every path (create, retrieve, list, wait) gets it. A body with neither still fails on `id`.
 */
function idFromVideoId(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  // Copied only when needed: this runs on every video of every answer.
  const { id, video_id } = body as Record<string, unknown>;
  if (id != null || typeof video_id !== 'string') return body;
  const { id: _absent, ...rest } = body as Record<string, unknown>;
  return { id: video_id, ...rest };
}

/** A parsed JSON object of its own (no prototype tricks, no `__proto__` key zod would drop). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, '__proto__')
  );
}

const isOptionalString = (value: unknown) => value == null || typeof value === 'string';
const isOptionalNumber = (value: unknown) => value == null || (typeof value === 'number' && Number.isFinite(value));

/** A job's error as the schema takes it, or none. */
function isOptionalError(value: unknown): boolean {
  return value == null || (isPlainObject(value) && typeof value.code === 'string' && typeof value.message === 'string');
}

/**
 * The common valid Video, checked by hand: a poll's answer skips zod (half a poll's CPU on Bun, bench/runtimes.ts).
 * Stricter than the schema on purpose: whatever it refuses (a `video_id` without `id`, a bad field) goes to zod.
 */
function isCommonVideo(value: unknown): value is Video {
  if (!isPlainObject(value)) return false;
  const { id, object, status, created_at, video_id } = value;
  if (typeof id !== 'string' || typeof status !== 'string' || typeof created_at !== 'number') return false;
  if (!Number.isFinite(created_at) || (object !== undefined && typeof object !== 'string')) return false;
  if (video_id !== undefined && typeof video_id !== 'string') return false;
  if (!isOptionalNumber(value.completed_at) || !isOptionalNumber(value.progress) || !isOptionalError(value.error)) return false;
  return (
    isOptionalString(value.model) &&
    isOptionalString(value.generation_mode) &&
    isOptionalString(value.aspect_ratio) &&
    isOptionalString(value.source_video_id) &&
    isOptionalString(value.caption_template_id) &&
    isOptionalString(value.share_link_url)
  );
}

// Typed by the type above: a field added to one and not the other does not compile.
export const videoSchema: Schema<Video> = schema(({ z }) => {
  // A plain string at runtime, typed with the known values for editor completion.
  const status = z.string() as unknown as Zod.ZodType<VideoStatus>;
  const model = z.string() as unknown as Zod.ZodType<VideoModel>;
  const optionalString = z.string().nullable().optional();
  const video = z.looseObject({
    id: z.string(),
    object: z.string().optional(),
    status,
    created_at: z.number(),
    completed_at: z.number().nullable().optional(),
    progress: z.number().nullable().optional(),
    error: z.looseObject({ code: z.string(), message: z.string() }).nullable().optional(),
    model: model.nullable().optional(),
    generation_mode: optionalString,
    aspect_ratio: optionalString,
    source_video_id: optionalString,
    caption_template_id: optionalString,
    // Outside the spec: a malformed one is dropped, never the reason a poll fails.
    share_link_url: optionalString.catch(undefined),
    video_id: z.string().optional(),
  });
  return z.preprocess(idFromVideoId, video) as Zod.ZodType<Video>;
}, isCommonVideo);

/**
 * avatar-video/proxy's answer to `GET .../v1/videos/{id}/content` asked with `accept: application/json`: the signed
 * address the API redirected to, in a form a page can read (a redirect's `Location` is hidden from it).
 */
export const signedAddressSchema: Schema<{ url: string }> = schema(
  ({ z }) => z.object({ url: z.url({ protocol: /^https?$/ }) }),
  isSignedAddress,
);

/** The common signed address: an http(s) URL under `url`, checked by hand (the zod schema takes the same protocols). */
function isSignedAddress(value: unknown): value is { url: string } {
  if (!isPlainObject(value) || typeof value.url !== 'string') return false;
  return /^https?:\/\//i.test(value.url) && URL.canParse(value.url);
}

/**
 * The list answer. The service sends a bare array (its OpenAPI description); the envelopes of similar
 * APIs are accepted too: an object with the items under `data`, `videos` or `items`.
 */
export const videoListSchema = schema((zod) => {
  const { z } = zod;
  const videos = z.array(videoSchema(zod));
  return z.union([
    videos,
    z.looseObject({
      data: videos.optional(),
      videos: videos.optional(),
      items: videos.optional(),
      has_more: z.boolean().nullable().optional(),
      last_id: z.string().nullable().optional(),
      next_cursor: z.string().nullable().optional(),
    }),
  ]);
}, isCommonList);

/** The service's own list answer, a bare array of common videos: a list page skips zod as a poll does. */
function isCommonList(value: unknown): value is Video[] {
  return Array.isArray(value) && value.every(isCommonVideo);
}

/** One page of `videos.list`, normalised. */
export interface VideoListEnvelope {
  data: Video[];
  /** What the service said about later pages; `null` when it did not say (a bare array). */
  has_more: boolean | null;
  last_id: string | null;
  next_cursor: string | null;
}

export function normaliseList(parsed: Zod.infer<ReturnType<typeof videoListSchema>>): VideoListEnvelope {
  const body = Array.isArray(parsed) ? { data: parsed } : parsed;
  const data = body.data ?? body.videos ?? body.items ?? [];
  const next_cursor = body.next_cursor ?? null;
  return {
    data,
    // A flag says it, and so does a cursor field (null: no next page). A bare array says nothing: the
    // page length has to tell (see VideoPage).
    has_more: body.has_more ?? (body.next_cursor !== undefined ? next_cursor !== null : null),
    last_id: body.last_id ?? data.at(-1)?.id ?? null,
    next_cursor,
  };
}

/** Turn zod issues into `path: problem` lines for ResponseValidationError. */
export function describeIssues(error: Zod.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(body)'}: ${issue.message}`);
}
