/**
 * The page's script (server.ts bundles it for the browser): the package's web client, talking only to the proxy
 * that server.ts mounts on this page's own origin. No key here: the proxy adds it on the server.
 */
import AvatarVideo from 'avatar-video';
import { fetchWithUploadProgress } from './upload-progress.js';

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = element<HTMLFormElement>('make');
const audio = element<HTMLInputElement>('audio');
const visual = element<HTMLInputElement>('visual');
const submit = element<HTMLButtonElement>('submit');
const upload = element<HTMLProgressElement>('upload');
const job = element<HTMLProgressElement>('job');
const status = element<HTMLParagraphElement>('status');
const result = element<HTMLVideoElement>('result');

const client = new AvatarVideo({
  // The proxy's mount path on this origin; the session cookie goes with every request and tells the proxy who asks.
  baseURL: new URL('/api/avatar', location.href).href,
  // fetch has no upload progress in browsers: this one sends bodies with XMLHttpRequest, which has.
  fetch: fetchWithUploadProgress((sent, total) => {
    upload.value = total > 0 ? Math.round((sent / total) * 100) : 0;
  }),
});

function say(text: string, isError = false): void {
  status.textContent = text;
  status.classList.toggle('error', isError);
}

async function make(audioFile: File, visualFile: File): Promise<void> {
  const reference = visualFile.type.startsWith('video/') ? { video_reference: visualFile } : { image_reference: visualFile };
  say('Uploading…');
  // Checked here first (formats, durations), as on a server: a bad file is refused before anything is sent.
  const created = await client.videos.create({ audio_reference: audioFile, ...reference });
  say(`Generating ${created.id}…`);
  const video = await client.videos.waitForCompletion(created, {
    onProgress: (current, { etaSeconds }) => {
      job.value = current.progress ?? 0;
      const eta = etaSeconds === undefined ? '' : `, about ${Math.ceil(etaSeconds)} s left`;
      say(`Generating ${current.id}: ${current.progress ?? 0}%${eta}`);
    },
  });
  job.value = 100;
  // The signed address of the file: the proxy answers it as JSON, since a page cannot read a redirect.
  result.src = await client.videos.contentURL(video);
  result.hidden = false;
  say(`Done: ${video.id}`);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const audioFile = audio.files?.[0];
  const visualFile = visual.files?.[0];
  if (!audioFile || !visualFile) return say('Choose both files first.', true);
  submit.disabled = true;
  upload.value = 0;
  job.value = 0;
  result.hidden = true;
  make(audioFile, visualFile)
    .catch((error: Error & { status?: number }) => {
      const tooLarge = error.status === 413 ? 'The files are over this server’s upload limit. ' : '';
      say(`${tooLarge}${error.name}: ${error.message}`, true);
    })
    .finally(() => {
      submit.disabled = false;
    });
});
