import { type Measured, measure, sniffFormat } from './measure.js';
import { type MockValidationProblem, reject, retryAfterSeconds, serviceRateLimit, validationResponse } from './responses.js';
import { FIELDS, type Format, MODEL_CHOICES, MODELS, PARTS, type Part } from './rules.js';
import type { MockState, MockVideo } from './state.js';

/** POST /v1/videos: checks the form the way the handlers.ts header describes (throwing the error response), then creates a job. */
export async function createVideo(request: Request, state: MockState): Promise<MockVideo> {
  const form = await readForm(request);
  const { audio, visual, visualPart, model } = checkFields(form);
  if (visualPart === 'video_reference' && !state.options.previewAccess) {
    reject(
      'preview_access_required',
      'video_reference is a gated preview feature and this API key does not have access to it. Use image_reference instead.',
    );
  }
  // Both formats are checked before either part is measured.
  const uploads = [await readPart(audio, 'audio_reference'), await readPart(visual, visualPart)];
  const [{ seconds: audioSeconds }, size] = uploads.map(checkMedia) as [Measured, Measured];
  // Checked once the form is read, right before the job starts: no await between, so no create slips past.
  const refusal = state.admit();
  if (refusal?.cause === 'concurrency') {
    reject('rate_limit_exceeded', `${state.options.concurrencyLimit} jobs are already processing; try again later.`, {
      'retry-after': retryAfterSeconds(refusal.waitMs),
    });
  }
  if (refusal?.cause === 'rate') throw serviceRateLimit(state.options.createRate?.retryAfter ? refusal.waitMs : undefined);
  const generation_mode = visualPart === 'image_reference' ? 'image_to_video' : 'video_to_video';
  const aspect_ratio = (size.height ?? 0) > (size.width ?? 0) ? '9:16' : '16:9';
  return state.createVideo({ model, generation_mode, aspect_ratio }, audioSeconds);
}

async function readForm(request: Request): Promise<FormData> {
  if (!request.headers.get('content-type')?.toLowerCase().startsWith('multipart/form-data')) {
    reject('invalid_multipart', 'POST /v1/videos expects a multipart/form-data body.');
  }
  return request
    .formData()
    .catch((error: Error) => reject('invalid_multipart', `The multipart body could not be parsed: ${error.message}`));
}

/**
 * What FastAPI checks before the service's own code runs: the declared parts, every problem at once,
 * answered with 422 `{detail: [...]}` in the order the parts are declared.
 */
function checkDeclared(form: FormData): void {
  const problems: MockValidationProblem[] = [];
  for (const field of FIELDS) {
    const value = form.get(field);
    const loc = ['body', field];
    if (field === 'audio_reference' && value === null) {
      problems.push({ type: 'missing', loc, msg: 'Field required', input: null });
    } else if (field === 'model') {
      if (value !== null && (typeof value !== 'string' || !(MODELS as readonly string[]).includes(value))) {
        const input = typeof value === 'string' ? value : value.name;
        problems.push({ type: 'literal_error', loc, msg: `Input should be ${MODEL_CHOICES}`, input, ctx: { expected: MODEL_CHOICES } });
      }
    } else if (typeof value === 'string') {
      const msg = "Value error, Expected UploadFile, received: <class 'str'>";
      problems.push({ type: 'value_error', loc, msg, input: value, ctx: { error: {} } });
    }
  }
  if (problems.length > 0) throw validationResponse(problems); // answered by the front door, as reject() is
}

function checkFields(form: FormData) {
  checkDeclared(form);
  const names: string[] = [];
  form.forEach((_value, name) => {
    names.push(name);
  });
  const unknown = names.find((name) => !FIELDS.includes(name));
  if (unknown !== undefined) reject('unknown_field', `Unknown form field '${unknown}'. Allowed fields: ${FIELDS.join(', ')}.`);
  const repeated = names.find((name) => form.getAll(name).length > 1);
  if (repeated !== undefined) reject('duplicate_field', `The form field '${repeated}' was sent more than once.`);
  // checkDeclared let through only files for the reference parts and a known model.
  const image = form.get('image_reference') as File | null;
  const video = form.get('video_reference') as File | null;
  const audio = form.get('audio_reference') as File;
  const model = (form.get('model') as string | null) ?? MODELS[0];
  if (image !== null && video !== null)
    reject('multiple_visual_references', 'Send exactly one of image_reference or video_reference, not both.');
  const visual = image ?? video;
  if (visual === null) {
    return reject(
      'missing_visual_reference',
      `A visual reference is required: send image_reference (${PARTS.image_reference.label}) or video_reference (${PARTS.video_reference.label}).`,
    );
  }
  const visualPart: Part = image !== null ? 'image_reference' : 'video_reference';
  return { audio, visual, visualPart, model };
}

type Upload = { bytes: Uint8Array; format: Format; part: Part; name: string };

async function readPart(file: File, part: Part): Promise<Upload> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const format = sniffFormat(bytes);
  const { formats, label } = PARTS[part];
  if (format === undefined || !formats.includes(format)) {
    const found = format === undefined ? 'no recognised format' : format.toUpperCase();
    return reject('unsupported_format', `${part} ('${file.name}') must be ${label}; its content is ${found}.`);
  }
  return { bytes, format, part, name: file.name };
}

/** An image's size, or the duration (and a video's size) within the part's inclusive range, by the mock's own readers. */
function checkMedia({ bytes, format, part, name }: Upload): Measured {
  const measured = measure(bytes, format);
  if (part === 'image_reference') return measured ?? reject('unreadable_media', `${part} ('${name}') has no readable width and height.`);
  if (measured === undefined) return reject('unreadable_media', `${part} ('${name}') could not be read to measure its duration.`);
  const { seconds } = measured;
  const [min, max] = PARTS[part].seconds ?? [0, 0];
  if (seconds < min || seconds > max) {
    reject(
      'duration_out_of_range',
      `${part} ('${name}') is ${Math.round(seconds * 100) / 100} s long; it must be ${min} to ${max} seconds.`,
    );
  }
  return measured;
}
