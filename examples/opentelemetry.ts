/**
 * OpenTelemetry bridge: the SDK's tracing channels (`avatar-video:job`, `:request`, `:download`, `:batch-item`, from
 * node:diagnostics_channel) turned into spans, each request and download under its job (a download's own requests, the
 * content request, its redirect and the file host's answers, under the download), and into three metrics:
 * 429 answers, jobs running, and the client's job limit. Copy `bridgeTracing` into an app that has an OpenTelemetry
 * SDK set up; the SDK itself needs no OpenTelemetry package.
 *
 *   npx tsx examples/opentelemetry.ts
 *
 * Run directly, it makes one video against the embedded mock and prints the span tree.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { pathToFileURL } from 'node:url';
import { type Attributes, context, type Meter, metrics, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/** A payload of the channels, as far as the bridge reads it (the README's "Tracing" section lists them). */
type Payload = Record<string, unknown> & { job?: object; error?: unknown };

/**
 * Subscribe to the SDK's channels: spans from `tracer`, metrics from `meter`. Returns the function that unsubscribes.
 */
export function bridgeTracing(tracer: Tracer, meter: Meter = metrics.getMeter('avatar-video')): () => void {
  const throttled = meter.createCounter('avatar_video.requests.throttled', { description: 'API answers 429' });
  const running = meter.createUpDownCounter('avatar_video.jobs.running', { description: 'Jobs between create and end' });
  const limit = meter.createGauge('avatar_video.jobs.limit', { description: "The client's limit on jobs running at once" });
  const spans = new WeakMap<object, Span>();
  /** Each job's download in progress: the parent of the content request and the file host's answers. */
  const downloads = new WeakMap<object, Payload>();

  /** Start the payload's span, under its parent's span (by default its job's) when it has one. */
  const open = (name: string, payload: Payload, attributes: Attributes, under = payload.job) => {
    const parent = under && spans.get(under);
    const scope = parent ? trace.setSpan(context.active(), parent) : context.active();
    spans.set(payload, tracer.startSpan(name, { attributes }, scope));
  };
  /** End the payload's span with its final attributes, as failed when the call threw. */
  const close = (payload: Payload, attributes: Attributes) => {
    const span = spans.get(payload);
    if (!span) return;
    span.setAttributes(attributes);
    if (payload.error !== undefined) {
      const error = payload.error as Error;
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
  };

  type Subscribers = diagnostics_channel.TracingChannelSubscribers<Payload>;
  // Node calls only the events a subscriber has; @types/node wants all five.
  const handlers: Record<string, Partial<Subscribers>> = {
    'avatar-video:job': {
      start: (job) => {
        open(`avatar-video ${job.operation}`, job, { 'avatar_video.operation': job.operation as string });
        running.add(1);
        if (typeof job.jobLimit === 'number') limit.record(job.jobLimit);
      },
      asyncEnd: (job) => {
        running.add(-1);
        close(job, defined({ 'avatar_video.video_id': job.videoId, 'avatar_video.outcome': job.outcome, 'avatar_video.polls': job.polls }));
      },
    },
    'avatar-video:request': {
      start: (request) => {
        const download = request.origin === 'file-host' || String(request.route).endsWith('/content');
        const attributes = {
          'http.request.method': request.method as string,
          'url.template': request.route as string,
          'server.address': request.host as string,
          'avatar_video.origin': request.origin as string,
          'avatar_video.attempt': request.attempt as number,
        };
        open(
          `${request.method} ${request.route}`,
          request,
          attributes,
          (download && request.job && downloads.get(request.job)) || request.job,
        );
      },
      asyncEnd: (request) => {
        if (request.status === 429) throttled.add(1, { 'url.template': request.route as string });
        close(request, defined({ 'http.response.status_code': request.status, 'avatar_video.request_id': request.requestId }));
      },
    },
    'avatar-video:download': {
      start: (download) => {
        open('avatar-video download', download, { 'avatar_video.video_id': download.videoId as string });
        if (download.job) downloads.set(download.job, download);
      },
      asyncEnd: (download) => {
        if (download.job) downloads.delete(download.job);
        close(
          download,
          defined({
            'avatar_video.bytes': download.bytes,
            'avatar_video.resumes': download.resumes,
            'avatar_video.restarts': download.restarts,
          }),
        );
      },
    },
    'avatar-video:batch-item': {
      start: (item) => open('avatar-video batch-item', item, { 'avatar_video.batch.key': item.key as string }),
      asyncEnd: (item) => close(item, defined({ 'avatar_video.batch.status': item.status, 'avatar_video.video_id': item.videoId })),
    },
  };
  for (const [name, subscribers] of Object.entries(handlers))
    diagnostics_channel.tracingChannel<string, Payload>(name).subscribe(subscribers as Subscribers);
  return () => {
    for (const [name, subscribers] of Object.entries(handlers))
      diagnostics_channel.tracingChannel<string, Payload>(name).unsubscribe(subscribers as Subscribers);
  };
}

/** The attributes whose values are set (OpenTelemetry drops undefined ones with a warning). */
function defined(attributes: Record<string, unknown>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;
}

/** Run directly: one `generate` against the mock, its spans kept in memory and printed as a tree. */
async function main(): Promise<void> {
  const { default: AvatarVideo } = await import('avatar-video');
  const { startMockServer } = await import('avatar-video/testing');
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const unsubscribe = bridgeTracing(provider.getTracer('avatar-video'));
  const mock = await startMockServer({ processingMs: 1_000 });
  // One 429 on the create, to show the retry as its own span.
  mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '0' } });
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL });
  try {
    const media = new URL('./media/', import.meta.url);
    const params = { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) };
    await client.videos.generate(params, { output: 'out.mp4', pollInterval: 500 });
  } finally {
    unsubscribe();
    await client.close();
    await mock.close();
  }
  const finished = exporter.getFinishedSpans();
  const print = (parentId: string | undefined, depth: number) => {
    for (const span of finished.filter((s) => s.parentSpanContext?.spanId === parentId)) {
      console.log(`${'  '.repeat(depth)}${span.name} ${JSON.stringify(span.attributes)}`);
      print(span.spanContext().spanId, depth + 1);
    }
  };
  print(undefined, 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
