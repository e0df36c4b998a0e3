/**
 * examples/browser in Chromium, as a user runs it: the page (bundled from this run's packed build through the
 * `browser` condition) and its server with `avatar-video/proxy`, in front of a mock this test starts and watches.
 * The page never holds the key; a second session cannot see the first one's video; an upload over the proxy's
 * limit never reaches the API. Without Chromium it is skipped, saying how to install it; under CI=true it fails.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { startBrowserExample } from '../helpers/browser-example.js';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { chromiumRunnable, launchChromium } from '../helpers/chromium.js';
import { useCleanup } from '../helpers/fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SPEECH = join(root, 'samples/speech.wav'); // 92 KB
const PORTRAIT = join(root, 'samples/portrait.png');
const LARGE_SPEECH = join(root, 'examples/media/speech.wav'); // 363 KB: over the limit below
const MAX_UPLOAD_BYTES = 200_000;

const closers = useCleanup();
const runnable = chromiumRunnable('test/e2e/browser.test.ts');

describe.runIf(runnable)('the browser example in Chromium, through the proxy', () => {
  let mock: MockServer;
  let browser: Browser;
  let url: string;
  let consumer: string;

  beforeAll(async () => {
    consumer = (await builtPackage()).consumer;
    mock = await startMockServer({ processingMs: 1000 });
    closers.push(() => mock.close());
    const example = await startBrowserExample(await consumerFolder('browser-', closers), {
      AVATAR_VIDEO_BASE_URL: mock.baseURL,
      AVATAR_VIDEO_API_KEY: mock.apiKey,
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
    });
    closers.push(() => example.close());
    url = example.url;
    browser = await launchChromium();
    closers.push(() => browser.close());
  }, 120_000);

  /** A new visitor: its own cookie jar, so its own demo session. Every request its pages make is kept with its headers. */
  async function visitor(at = url): Promise<{ context: BrowserContext; page: Page; sent: Array<Promise<Record<string, string>>> }> {
    const context = await browser.newContext();
    closers.push(() => context.close());
    const page = await context.newPage();
    const sent: Array<Promise<Record<string, string>>> = [];
    page.on('request', (request) => {
      const headers = request.allHeaders().then((all) => ({ ...all, url: request.url() }));
      // A request still going when the test closes the page (the <video> reading on) has its headers no more.
      headers.catch(() => {});
      sent.push(headers);
    });
    await page.goto(at);
    return { context, page, sent };
  }

  async function make(page: Page, audio: string, visual: string): Promise<void> {
    await page.setInputFiles('#audio', audio);
    await page.setInputFiles('#visual', visual);
    await page.click('#submit');
  }

  const text = (page: Page, selector: string) => page.locator(selector).innerText();
  const done = (page: Page) =>
    page.waitForFunction(() => /^Done: /.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 30_000 });

  it('makes a video from the two files with progress shown, the <video> plays it, and no request of the page carries the key', async () => {
    const { page, sent } = await visitor();
    const statuses: string[] = [];
    await page.exposeFunction('recordStatus', (line: string) => statuses.push(line));
    await page.evaluate(() => {
      const status = document.getElementById('status') as HTMLElement;
      const record = (window as unknown as { recordStatus(line: string): void }).recordStatus;
      new MutationObserver(() => record(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await make(page, SPEECH, PORTRAIT);

    await done(page);
    expect(await page.locator('#upload').evaluate((bar: HTMLProgressElement) => bar.value)).toBe(100);
    expect(await page.locator('#job').evaluate((bar: HTMLProgressElement) => bar.value)).toBe(100);
    // The wait reported the job's progress on the way, below 100 and above it.
    const percents = statuses.flatMap((line) => /^Generating vid_\w+: (\d+)%/.exec(line)?.[1] ?? []).map(Number);
    expect(statuses[0]).toBe('Uploading…');
    expect(
      percents.some((percent) => percent > 0 && percent < 100),
      statuses.join('\n'),
    ).toBe(true);

    const played = await page.locator('#result').evaluate(async (video: HTMLVideoElement) => {
      video.muted = true;
      await video.play();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { readyState: video.readyState, duration: video.duration, currentTime: video.currentTime, hidden: video.hidden };
    });
    expect(played.hidden).toBe(false);
    expect(played.readyState).toBeGreaterThanOrEqual(2);
    expect(played.duration).toBeGreaterThan(0);
    expect(played.currentTime).toBeGreaterThan(0);

    const headers = await Promise.all(sent);
    expect(headers.map((each) => each.url)).toContain(`${url}api/avatar/v1/videos`);
    expect(headers.filter((each) => 'x-api-key' in each)).toEqual([]);
    // The key reached the API only from the proxy (with the page's cookie stripped), and never the file host.
    const api = mock.requests.filter((request) => request.origin === 'api');
    expect(api.length).toBeGreaterThanOrEqual(3); // the create, the polls, the content address
    expect(api.filter((request) => !request.apiKeyValid || 'cookie' in request.headers)).toEqual([]);
    const cdn = mock.requests.filter((request) => request.origin === 'cdn');
    expect(cdn.length).toBeGreaterThan(0);
    expect(cdn.filter((request) => request.hasApiKey)).toEqual([]);
  });

  it('answers 403 to a second session asking for the first session’s video, and 200 to the first', async () => {
    const first = await visitor();
    await make(first.page, SPEECH, PORTRAIT);
    await done(first.page);
    const id = (await text(first.page, '#status')).replace('Done: ', '');
    const second = await visitor();
    const statuses = (page: Page) =>
      page.evaluate(async (videoId) => {
        const ask = async (path: string) => (await fetch(`/api/avatar/v1/videos/${videoId}${path}`, { redirect: 'manual' })).status;
        return [await ask(''), await ask('/content')];
      }, id);
    expect(await statuses(second.page)).toEqual([403, 403]);
    // Not a proxy refusing everyone: the session that made it gets it (the content as a redirect, opaque to a page).
    expect(await statuses(first.page)).toEqual([200, 0]);
  });

  it('refuses an upload over maxUploadBytes with 413, and the API never sees a create', async () => {
    const { page } = await visitor();
    const creates = mock.creates;
    const posts = () => mock.requests.filter((request) => request.method === 'POST').length;
    const postsBefore = posts();
    await make(page, LARGE_SPEECH, PORTRAIT);
    await page.waitForFunction(() => document.getElementById('status')?.classList.contains('error'), undefined, { timeout: 30_000 });
    expect(await text(page, '#status')).toMatch(/^The files are over this server’s upload limit\. .*413/);
    expect(mock.creates).toBe(creates);
    expect(posts()).toBe(postsBefore);
  });

  it('refuses an API key given to the client in a page, saying why, before any request', async () => {
    const { page, sent } = await visitor();
    const requestsBefore = sent.length;
    const probe = await build({
      stdin: {
        contents: `import AvatarVideo, { InvalidArgumentError } from 'avatar-video';
try {
  new AvatarVideo({ apiKey: 'sk-live-in-page', baseURL: '/api/avatar' });
  window.probe = { thrown: false };
} catch (error) {
  window.probe = { thrown: true, invalid: error instanceof InvalidArgumentError, name: error.name, message: error.message };
}`,
        resolveDir: consumer,
        loader: 'js',
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      tsconfigRaw: {},
      logLevel: 'silent',
    });
    await page.addScriptTag({ content: probe.outputFiles[0]?.text ?? '', type: 'module' });
    await page.waitForFunction(() => 'probe' in window);
    const result = (await page.evaluate(() => (window as unknown as { probe: unknown }).probe)) as Record<string, unknown>;
    expect(result).toMatchObject({ thrown: true, invalid: true, name: 'InvalidArgumentError' });
    expect(result.message).toMatch(/server/i);
    expect(result.message).toMatch(/avatar-video\/proxy/);
    expect(result.message).not.toContain('sk-live-in-page');
    expect(sent.length).toBe(requestsBefore);
  });

  it('runs against a mock of its own when no service is configured: the README’s one command', async () => {
    const seen = mock.requests.length;
    const own = await startBrowserExample(await consumerFolder('browser-own-', closers), {
      AVATAR_VIDEO_BASE_URL: '',
      AVATAR_VIDEO_API_KEY: '',
    });
    closers.push(() => own.close());
    const { page } = await visitor(own.url);
    await make(page, SPEECH, PORTRAIT);
    await done(page);
    expect(await page.locator('#result').evaluate((video: HTMLVideoElement) => video.src)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
    expect(mock.requests.length).toBe(seen);
  }, 60_000);
});
