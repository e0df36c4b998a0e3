/**
 * The built avatar-video/testing as a user meets it: it requires and imports nothing but node's own modules (the
 * parts of msw it uses, and their ES-module-only dependencies, are inside) and standardwebhooks, a dependency of the
 * package, for `signedEvent`; its CommonJS build holds no `import()`
 * (which Jest's CommonJS mode refuses), and one process that loads both formats loads mediabunny once.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const media = join(root, 'examples/media');
const { dir: pkg } = await builtPackage();
const closers = useCleanup();
const TWICE = 'Mediabunny was loaded twice';

describe('the built testing entry', () => {
  it('requires and imports nothing but node’s own modules (msw and its dependencies are inside) and standardwebhooks, and the CommonJS builds hold no import()', async () => {
    for (const file of ['testing/index.js', 'testing/index.cjs']) {
      const text = await readFile(join(pkg, 'dist', file), 'utf8');
      // Import statements start a line in esbuild's output; requires and import() are calls with a literal.
      const imports = /^import\b[^;]*?["']([^"']+)["'];$|\b(?:require|import)\(["']([^"']+)["']\)/gm;
      const specifiers = [...text.matchAll(imports)].map(([, statement, call]) => statement ?? call);
      expect(specifiers.length, file).toBeGreaterThan(0);
      // But for standardwebhooks, which signedEvent signs with as the SDK's deliveries are: a dependency of the
      // package, installed with it (and CommonJS, which Jest's CommonJS mode requires).
      expect(
        specifiers.filter((name) => !isBuiltin(name ?? '')),
        file,
      ).toEqual(['standardwebhooks']);
    }
    for (const file of ['index.cjs', 'testing/index.cjs']) {
      expect(await readFile(join(pkg, 'dist', file), 'utf8'), file).not.toMatch(/\bimport\(/);
    }
  });
});

describe('mediabunny', () => {
  it('is loaded once, the package’s own copy, in a process that loads index.cjs, testing/index.cjs and media/index.js, all using it', async () => {
    const work = await consumerFolder('mediabunny-', closers);
    await writeFile(
      join(work, 'both.mjs'),
      `import { createRequire } from 'node:module';
import { join } from 'node:path';
const require = createRequire(import.meta.url);
const AvatarVideo = require('avatar-video');
const { startMockServer } = require('avatar-video/testing');
const esm = await import('avatar-video/media');
const media = ${JSON.stringify(media)};
const mock = await startMockServer({ processingMs: 100 });
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
// The CommonJS SDK probes the video reference, the mock renders the output, the ESM media entry probes it.
const video = await client.videos.createAndWait({ audio_reference: join(media, 'speech.wav'), video_reference: join(media, 'presenter.mp4') });
const saved = await client.videos.download(video.id, join(${JSON.stringify(work)}, 'out.mp4'));
const probed = await esm.probeMedia(saved.path);
await client.close();
await mock.close();
const loaded = Object.keys(require.cache).filter((file) => /mediabunny/i.test(file));
console.log(JSON.stringify({ status: video.status, kind: probed.kind, format: probed.format, loaded }));
`,
    );
    const { stdout, stderr } = await run(process.execPath, ['both.mjs'], { cwd: work });
    // Not the mediabunny package, which this repository has installed where the consumer would find it too.
    const loaded = [join(pkg, 'dist/vendor/mediabunny.cjs')];
    expect(JSON.parse(stdout)).toEqual({ status: 'COMPLETE', kind: 'video', format: 'mp4', loaded });
    expect(stderr).not.toContain(TWICE);
  });
});
