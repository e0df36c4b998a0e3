/**
 * The OpenTelemetry bridge of examples/opentelemetry.ts, with the in-memory span exporter: one `generate` is one
 * job span with its create, polls and download underneath (the download's content request and the file host's answer
 * under the download), counted in the metrics, and no span holds the key or a signed address's query.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Meter } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import AvatarVideo from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';
import { expect, it } from 'vitest';
import { bridgeTracing } from './opentelemetry.js';

/** A meter that keeps every value its instruments are given. */
function recordingMeter() {
  const values: Record<string, number[]> = {};
  const instrument = (name: string) => {
    values[name] = [];
    const keep = (value: number) => values[name]?.push(value);
    return { add: keep, record: keep };
  };
  const meter = { createCounter: instrument, createUpDownCounter: instrument, createGauge: instrument } as unknown as Meter;
  return { meter, values };
}

it('turns one generate into one job span with its create, polls and download underneath, and no key or sig=', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const { meter, values } = recordingMeter();
  const unsubscribe = bridgeTracing(provider.getTracer('test'), meter);
  const mock = await startMockServer({ processingMs: 300 });
  mock.failNext({ method: 'POST', path: '/v1/videos' }, { status: 429, headers: { 'retry-after': '0' } });
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL });
  const dir = await mkdtemp(join(tmpdir(), 'avatar-otel-'));
  try {
    const media = new URL('./media/', import.meta.url);
    const params = { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) };
    await client.videos.generate(params, { output: join(dir, 'out.mp4'), pollInterval: 50 });
  } finally {
    unsubscribe();
    await client.close();
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  }

  const spans = exporter.getFinishedSpans();
  const roots = spans.filter((span) => span.parentSpanContext === undefined);
  expect(roots.map((span) => span.name)).toEqual(['avatar-video generate']);
  const job = roots[0]!;
  expect(job.attributes).toMatchObject({ 'avatar_video.outcome': 'COMPLETE', 'avatar_video.video_id': expect.any(String) });
  const children = spans.filter((span) => span.parentSpanContext?.spanId === job.spanContext().spanId);
  const names = children.map((span) => span.name);
  expect(names.slice(0, 2)).toEqual(['POST /v1/videos', 'POST /v1/videos']);
  expect(children[0]?.attributes['http.response.status_code']).toBe(429);
  const polls = names.filter((name) => name === 'GET /v1/videos/{id}').length;
  expect(polls).toBeGreaterThan(0);
  expect(job.attributes['avatar_video.polls']).toBe(polls);
  expect(names.at(-1)).toBe('avatar-video download');
  expect(names).toHaveLength(polls + 3);
  const download = children.at(-1)!;
  const fetched = spans.filter((span) => span.parentSpanContext?.spanId === download.spanContext().spanId);
  expect(fetched.map((span) => [span.name, span.attributes['avatar_video.origin'], span.attributes['server.address']])).toEqual([
    ['GET /v1/videos/{id}/content', 'api', new URL(mock.baseURL).host],
    ['GET {file}', 'file-host', new URL(mock.cdnURL).host],
  ]);
  expect(fetched.map((span) => span.attributes['http.response.status_code'])).toEqual([302, 200]);
  // Every span is the job, under it, or under its download.
  expect(spans).toHaveLength(1 + children.length + fetched.length);

  expect(values['avatar_video.requests.throttled']).toEqual([1]);
  expect(values['avatar_video.jobs.running']).toEqual([1, -1]);
  expect(values['avatar_video.jobs.limit']).toEqual([2]);

  const everything = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events, span.status]));
  expect(everything).not.toContain(mock.apiKey);
  expect(everything).not.toContain('sig=');
});
