import { ResponseValidationError } from '../errors.js';
import type { Answer } from '../internal/api-promise.js';
import { header, type RawHeaders, requestId } from '../internal/headers.js';
import { apiPath } from '../internal/path.js';
import type { Platform } from '../internal/platform.js';
import { redirectRefusal } from '../internal/redirect-rule.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { Transport } from '../internal/transport.js';
import type { CreateOptions, CreateUpload, Endpoints, StreamedAnswer, StreamOptions } from '../lib/endpoints.js';
import { prepareUnchecked, type VideoCreateParams } from '../lib/media/prepare.js';
import { prepareValidated } from '../lib/media/validate.js';
import type { VideoListParams } from '../pagination.js';
import { normaliseList, signedAddressSchema, type Video, type VideoListEnvelope, videoListSchema, videoSchema } from '../schemas.js';

/** A create refused for a video reference: the spec makes video-to-video a gated preview. */
const advice = (status: number, code: string | undefined, message: string | undefined) =>
  status === 403 && /preview|video_reference/i.test(`${code} ${message}`)
    ? 'video references are a gated preview: ask for access to use video_reference, or send an image_reference'
    : undefined;

/** A video's file as a stream: its body is the platform's (a Node Readable, a web ReadableStream). */
export interface StreamedContent {
  body: unknown;
  contentLength: number | undefined;
  contentType: string | undefined;
  url: string;
}

/**
 * @internal The endpoints of `/v1/videos` over the client's transport: the one place each request is described.
 * The resource's public methods and every workflow of lib/ (through the {@link Endpoints} port) call these. The
 * runtime's platform encodes a create's body and gives a video's bytes as its users read a stream.
 */
export class VideoEndpoints implements Endpoints {
  readonly #transport: Transport;
  /** The client's media limits, which a checked create's inputs are held to. */
  readonly #limits: { maxAudioSeconds: number };
  readonly #platform: Pick<Platform, 'encodeMultipart' | 'contentBody'>;

  constructor(transport: Transport, limits: { maxAudioSeconds: number }, platform: Pick<Platform, 'encodeMultipart' | 'contentBody'>) {
    this.#transport = transport;
    this.#limits = limits;
    this.#platform = platform;
  }

  async openCreate(params: VideoCreateParams, options: Pick<CreateOptions, 'validate'>): Promise<CreateUpload> {
    // Validation opens (and for one-shot streams, spools) the inputs once; the same sources are uploaded each time.
    const prepared = options.validate === false ? await prepareUnchecked(params) : await prepareValidated(params, this.#limits);
    return {
      send: (request) => {
        const body = () => this.#platform.encodeMultipart(prepared.files, prepared.fields, request.onUploadProgress);
        return this.#transport.request({ method: 'POST', path: 'v1/videos', kind: 'create', body, advice }, videoSchema, request);
      },
      close: () => prepared.dispose(),
    };
  }

  /** `POST /v1/videos`: the inputs opened, sent (retried as `maxRetries` allows: a refused create started no job), closed. */
  async create(params: VideoCreateParams, options: CreateOptions): Promise<Answer<Video>> {
    const upload = await this.openCreate(params, options);
    try {
      return await upload.send(options);
    } finally {
      await upload.close();
    }
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<Video>> {
    const request = { method: 'GET', path: apiPath`v1/videos/${id}`, route: 'v1/videos/{id}', kind: 'read' } as const;
    return this.#transport.request(request, videoSchema, options);
  }

  /** One page of `GET /v1/videos`, normalised. */
  async list(query: VideoListParams, options?: RequestOptions): Promise<Answer<VideoListEnvelope>> {
    // `{ ...query }`: the params as the plain record the transport's query takes.
    const request = { method: 'GET', path: 'v1/videos', query: { ...query }, kind: 'read' } as const;
    const answer = await this.#transport.request(request, videoListSchema, options);
    return { ...answer, data: normaliseList(answer.data) };
  }

  /** `GET /v1/videos/{id}/content` as a stream, with the read retries. */
  content(id: string, options: RequestOptions): Promise<Answer<StreamedContent>> {
    return this.#streamed(options, (attempt) => this.openContent(id, { ...options, attempt }));
  }

  /** A video's file at its signed address `url` as a stream, with the read retries (the web entry behind a proxy). */
  fileContent(url: URL, options: RequestOptions): Promise<Answer<StreamedContent>> {
    return this.#streamed(options, (attempt) => this.openFile(url, { ...options, attempt }));
  }

  async #streamed(options: RequestOptions, open: (attempt: number) => Promise<StreamedAnswer>): Promise<Answer<StreamedContent>> {
    const response = await this.retryingReads(options, open);
    const length = Number(header(response.headers, 'content-length'));
    const data = {
      body: this.#platform.contentBody(response),
      contentLength: Number.isFinite(length) ? length : undefined,
      contentType: header(response.headers, 'content-type'),
      url: response.url.href,
    };
    return { data, status: response.status, headers: response.headers };
  }

  openContent(id: string, options: StreamOptions): Promise<StreamedAnswer> {
    return this.#transport.get(this.#contentAddress(id), CONTENT_ROUTE, contentRequest(options));
  }

  openFile(url: URL, options: StreamOptions): Promise<StreamedAnswer> {
    return this.#transport.get(url, CONTENT_ROUTE, contentRequest(options));
  }

  contentURL(id: string, options: RequestOptions): Promise<Answer<string>> {
    return this.retryingReads(options, (attempt) =>
      this.#transport.resolveRedirect(this.#contentAddress(id), CONTENT_ROUTE, contentRequest({ ...options, attempt })),
    );
  }

  /**
   * The content address asked of avatar-video/proxy as JSON (`{"url"}`), for a page: it cannot read a redirect. The
   * address is held to the rule a redirect is (http(s), never down from https), so a page is never handed a
   * `javascript:` one.
   */
  async signedAddress(id: string, options: RequestOptions): Promise<Answer<string>> {
    const request = { method: 'GET', path: apiPath`v1/videos/${id}/content`, route: CONTENT_ROUTE, kind: 'read' } as const;
    const headers = { ...options.headers, accept: 'application/json' };
    const answer = await this.#transport.request(request, signedAddressSchema, { ...options, headers });
    return { ...answer, data: followable(answer.data.url, this.#contentAddress(id), answer.headers) };
  }

  retryingReads<R>(options: RequestOptions, attempt: (number: number) => Promise<R>): Promise<R> {
    return this.#transport.withRetries('read', options, attempt);
  }

  /** The content endpoint of video `id`, which redirects to the file. */
  #contentAddress(id: string): URL {
    return this.#transport.url(apiPath`v1/videos/${id}/content`);
  }
}

/** `address` as a redirect from `from` to it may be followed (internal/redirect-rule.ts); else the answer broke the contract. */
function followable(address: string, from: URL, headers: RawHeaders): string {
  const refusal = redirectRefusal(from, new URL(address));
  if (refusal === undefined) return address;
  const id = requestId(headers);
  throw new ResponseValidationError({
    message: `The content answer of ${from.pathname} names an address a page must not open (${refusal})${id ? ` [request id ${id}]` : ''}.`,
    body: { url: address },
    requestId: id,
    problems: [`url: ${refusal}`],
  });
}

/** The content endpoint's route template, for traces. */
const CONTENT_ROUTE = 'v1/videos/{id}/content';

/** A streamed GET of a video's file with the call's options: it asks for an MP4. */
function contentRequest({ headers, timeout, idleTimeout, signal, attempt }: StreamOptions): StreamOptions {
  return { headers: { ...headers, accept: 'video/mp4, */*' }, timeout, idleTimeout, signal, attempt };
}
