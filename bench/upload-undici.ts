/**
 * Child of bench/upload.ts, compiled before it runs: what a user would write without the SDK, following the
 * form-data-encoder README: formdata-node files from paths, `FormDataEncoder`, `Readable.from(encoder)` as the
 * body of an undici `request`. It does not load the SDK and checks nothing locally.
 *
 *   node upload-undici.js <api origin> <audio path> <video path>
 */
import { Readable } from 'node:stream';
import { FormDataEncoder } from 'form-data-encoder';
import { FormData } from 'formdata-node';
import { fileFromPath } from 'formdata-node/file-from-path';
import { request } from 'undici';
import { BENCH_KEY } from './support/servers.js';
import { measureUpload } from './upload-measure.js';

const [api, audio, videoPath] = process.argv.slice(2) as [string, string, string];
await measureUpload(async () => {
  const form = new FormData();
  form.set('audio_reference', await fileFromPath(audio, { type: 'audio/wav' }));
  form.set('video_reference', await fileFromPath(videoPath, { type: 'video/mp4' }));
  const encoder = new FormDataEncoder(form);
  const response = await request(`${api}/v1/videos`, {
    method: 'POST',
    headers: { ...encoder.headers, 'x-api-key': BENCH_KEY, accept: 'application/json' },
    body: Readable.from(encoder),
  });
  const body = (await response.body.json()) as { id: string };
  if (response.statusCode !== 200) throw new Error(`upload answered ${response.statusCode}`);
  return body;
});
