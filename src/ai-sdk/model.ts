import type {
  Experimental_VideoModelV4CallOptions as CallOptions,
  Experimental_VideoModelV4Result as GenerateResult,
  JSONValue,
  SharedV4ProviderMetadata,
  Experimental_VideoModelV4OperationStartResult as StartResult,
  Experimental_VideoModelV4OperationStatusResult as StatusResult,
  Experimental_VideoModelV4 as VideoModelV4,
} from '@ai-sdk/provider';
import { type AvatarVideo, InvalidArgumentError, type Video, type VideoCreateParams, type VideoModel } from 'avatar-video';
import { sortInputs } from './inputs.js';
import { callSettings } from './settings.js';
import { checkedVideoBytes } from './video-file.js';
import { resolvedAspectRatio, unsupportedSettings } from './warnings.js';

/** A model id: one of the spec's models, or any other the service may offer. */
export type AvatarVideoModelId = VideoModel | (string & {});

/** What a `doStart` returns to `doStatus`, in any process: the job's id. */
export interface AvatarVideoOperation {
  videoId: string;
}

const PROVIDER = 'avatar-video';
const MP4 = 'video/mp4';

/** The AI SDK's headers for the request, without its `user-agent`, which would replace the SDK's own. */
function forwardedHeaders(headers: CallOptions['headers']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[0].toLowerCase() !== 'user-agent',
    ),
  );
}

/** `providerMetadata.avatarVideo` of a job. */
function metadataOf(video: Video): SharedV4ProviderMetadata {
  const { id: videoId, model = null, generation_mode = null, aspect_ratio = null } = video;
  return { avatarVideo: { videoId, model, generationMode: generation_mode, aspectRatio: aspect_ratio } };
}

/**
 * A video model of the AI SDK (`Experimental_VideoModelV4`) making avatar videos: one job per video, its inputs sorted
 * by their bytes, checked locally before the create. The SDK's errors are thrown as they are: the AI SDK retries only
 * its own `APICallError`s marked retryable, so no create is sent twice by `maxRetries`.
 */
export class AvatarVideoModel implements VideoModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = PROVIDER;
  /** One job per call: `n: 2` makes two calls, each one create. */
  readonly maxVideosPerCall = 1;
  readonly modelId: AvatarVideoModelId;
  readonly #client: () => AvatarVideo;

  /** @internal Made by the provider (`createAvatarVideo`), which owns the client. */
  constructor(modelId: AvatarVideoModelId, client: () => AvatarVideo) {
    this.modelId = modelId;
    this.#client = client;
  }

  /**
   * Make the job through the client's job runner, as `videos.generate` does (a place under the client's
   * `jobConcurrency`, a refused create sent again, a job FAILED for a rate limit or a service fault made again up to
   * `maxJobAttempts`), wait for it and return its checked MP4.
   */
  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const { params, warnings, settings } = await this.#prepare(options);
    const client = this.#client();
    const video = await client.videos.createAndWait(params, {
      validate: settings.validate,
      waitTimeout: settings.waitTimeout,
      signal: options.abortSignal,
      headers: forwardedHeaders(options.headers),
    });
    const data = await checkedVideoBytes(client, video, options.abortSignal);
    return {
      videos: [{ type: 'binary', data, mediaType: MP4 }],
      warnings,
      providerMetadata: metadataOf(video),
      response: this.#response(),
    };
  }

  /** Check the inputs and create the job; its operation, `{ videoId }`, is JSON for `doStatus` in any process. */
  async doStart(options: CallOptions): Promise<StartResult> {
    const { params, warnings, settings } = await this.#prepare(options);
    const video = await this.#client().videos.create(params, {
      validate: settings.validate,
      signal: options.abortSignal,
      headers: forwardedHeaders(options.headers),
    });
    const operation: AvatarVideoOperation = { videoId: video.id };
    return { operation: { ...operation }, warnings, providerMetadata: metadataOf(video), response: this.#response() };
  }

  /** One `videos.poll` of the job: pending, completed with its checked MP4, or the error it ended with. */
  async doStatus(options: {
    operation: JSONValue;
    abortSignal?: AbortSignal | undefined;
    headers?: Record<string, string | undefined> | undefined;
  }): Promise<StatusResult> {
    const videoId = operationId(options.operation);
    const client = this.#client();
    const { video, done } = await client.videos.poll(videoId, undefined, {
      signal: options.abortSignal,
      headers: forwardedHeaders(options.headers),
    });
    const common = { providerMetadata: metadataOf(video), response: this.#response() };
    if (!done) return { status: 'pending', ...common };
    if (video.status !== 'COMPLETE') {
      const why = video.error ? `${video.error.code}: ${video.error.message}` : 'the job was cancelled';
      return { status: 'error', error: `Video ${video.id} ended ${video.status} (${why}).`, ...common };
    }
    const data = await checkedVideoBytes(client, video, options.abortSignal);
    return { status: 'completed', videos: [{ type: 'binary', data, mediaType: MP4 }], warnings: [], ...common };
  }

  /** The call's create parameters and warnings, every check done that can be done before a create. */
  async #prepare(options: CallOptions) {
    if (options.n !== 1) {
      throw new InvalidArgumentError(
        'n',
        `avatar-video makes one video per call (maxVideosPerCall is 1); this call asked for ${options.n}.`,
      );
    }
    const settings = callSettings(options.providerOptions);
    const { params, visual } = await sortInputs(options);
    const warnings = unsupportedSettings(options, resolvedAspectRatio(visual.width, visual.height));
    const model = (settings.model ?? this.modelId) as VideoModel;
    return { params: { ...params, model } as VideoCreateParams, warnings, settings };
  }

  #response() {
    return { timestamp: new Date(), modelId: this.modelId, headers: undefined };
  }
}

/** The job's id from an operation `doStart` returned (after a JSON round trip, perhaps in another process). */
function operationId(operation: JSONValue): string {
  const id = (operation as Partial<AvatarVideoOperation> | null)?.videoId;
  if (typeof operation !== 'object' || Array.isArray(operation) || typeof id !== 'string' || id === '') {
    throw new InvalidArgumentError(
      'operation',
      'The operation is not one avatar-video started: pass what experimental_startVideo returned, { videoId }.',
    );
  }
  return id;
}
