/**
 * A Cloudflare Worker that makes a video from an uploaded form: `POST /videos` with the fields `audio` and `image`
 * (files) answers the job, created after the inputs were checked in the Worker itself; `GET /videos/{id}` waits for it
 * and answers it with its signed address. `avatar-video` resolves to the package's web entry here (the `workerd`
 * export condition): no nodejs_compat flag is needed.
 *
 *   npx wrangler dev examples/workers/worker.ts   # with the two variables below in .dev.vars
 *   curl -F audio=@examples/media/speech.wav -F image=@examples/media/portrait.png http://localhost:8787/videos
 */
import AvatarVideo, { MediaValidationError } from 'avatar-video';

/** The Worker's bindings: the key as a secret (`wrangler secret put AVATAR_VIDEO_API_KEY`), the address as a variable. */
export interface Env {
  AVATAR_VIDEO_API_KEY: string;
  AVATAR_VIDEO_BASE_URL: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const client = new AvatarVideo({ apiKey: env.AVATAR_VIDEO_API_KEY, baseURL: env.AVATAR_VIDEO_BASE_URL });
    const { pathname } = new URL(request.url);
    if (request.method === 'POST' && pathname === '/videos') return create(client, await request.formData());
    const id = /^\/videos\/([^/]+)$/.exec(pathname)?.[1];
    if (request.method === 'GET' && id) {
      const video = await client.videos.waitForCompletion(decodeURIComponent(id), { waitTimeout: 120_000 });
      return Response.json({ video, contentURL: await client.videos.contentURL(video) });
    }
    return Response.json({ error: 'POST /videos with the files audio and image, or GET /videos/{id}' }, { status: 404 });
  },
};

/** The job made from the form's two files, or why not: a problem with a file is found before anything is sent. */
async function create(client: AvatarVideo, form: FormData): Promise<Response> {
  const [audio, image] = [form.get('audio'), form.get('image')];
  if (typeof audio === 'string' || typeof image === 'string' || !audio || !image) {
    return Response.json({ error: 'send two files: audio (WAV or MP3) and image (JPEG or PNG)' }, { status: 400 });
  }
  try {
    const video = await client.videos.create({ audio_reference: audio, image_reference: image });
    return Response.json(video, { status: 201 });
  } catch (error) {
    if (!(error instanceof MediaValidationError)) throw error;
    return Response.json({ error: error.name, message: error.message, issues: error.issues }, { status: 422 });
  }
}
