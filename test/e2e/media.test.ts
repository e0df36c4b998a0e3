/**
 * `avatar-video/media` as built and installed (test/setup/build.ts): reachable by `import` and `require` through
 * package.json's `exports`, and sharing the main entry's error classes and `toFile`'s class (the build imports them
 * from `avatar-video` by name), so what the helpers throw is the main entry's class itself and what `toFile` makes
 * is read as a named upload.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir: pkg } = await builtPackage();
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  work = await consumerFolder('media-', closers);
});

/** Run `source` as `name` in the consumer folder and parse the JSON it prints. */
async function runInChild(name: string, source: string): Promise<Record<string, unknown>> {
  await writeFile(join(work, name), source);
  const { stdout } = await run(process.execPath, [join(work, name)], { cwd: work });
  return JSON.parse(stdout) as Record<string, unknown>;
}

// Runs in the child with `main` and `media` loaded in one format: a wav probed by path and as toFile's bytes, and
// two inputs refused (a wav as the image; a missing file), whose errors must be the main entry's classes themselves.
const PROBE = `
  const speech = ${JSON.stringify(join(root, 'examples/media/speech.wav'))};
  const bytes = require('node:fs').readFileSync(speech);
  const refused = await media.validateCreateParams({ audio_reference: speech, image_reference: speech }).catch((error) => error);
  const missing = await media.probeMedia('/no/such/file.png').catch((error) => error);
  const seen = {
    byPath: (await media.probeMedia(speech)).format,
    named: (await media.probeMedia(main.toFile(bytes, 'speech.wav'))).format,
    sameClass: [refused.constructor === main.MediaValidationError, missing.constructor === main.UploadInputError],
    limits: media.LIMITS.maxAudioSeconds > 0,
    onMain: ['probeMedia', 'validateCreateParams', 'splitAudio', 'joinVideos', 'LIMITS'].filter((name) => name in main),
  };`;
const EXPECTED = { byPath: 'wav', named: 'wav', sameClass: [true, true], limits: true, onMain: [] };

describe('avatar-video/media, built', () => {
  it("import: works, throwing the main entry's error classes and reading toFile's uploads", async () => {
    const seen = await runInChild(
      'probe.mjs',
      `import { createRequire } from 'node:module';
      import * as main from 'avatar-video';
      import * as media from 'avatar-video/media';
      const require = createRequire(import.meta.url);
      ${PROBE}
      console.log(JSON.stringify({ ...seen, resolved: import.meta.resolve('avatar-video/media') }));`,
    );
    expect(seen).toMatchObject(EXPECTED);
    expect(seen.resolved).toBe(`file://${join(pkg, 'dist', 'media', 'index.js')}`);
  });

  it("require: works, throwing the main entry's error classes and reading toFile's uploads", async () => {
    const seen = await runInChild(
      'probe.cjs',
      `const main = require('avatar-video');
      const media = require('avatar-video/media');
      (async () => {
      ${PROBE}
      console.log(JSON.stringify({ ...seen, resolved: require.resolve('avatar-video/media') }));
      })();`,
    );
    expect(seen).toMatchObject(EXPECTED);
    expect(seen.resolved).toBe(join(pkg, 'dist', 'media', 'index.cjs'));
  });

  it('neither build holds a copy of an error class or of NamedUpload: both import them from avatar-video', async () => {
    for (const file of ['index.js', 'index.cjs']) {
      const code = await readFile(join(pkg, 'dist', 'media', file), 'utf8');
      expect(code).not.toMatch(/\b(class\s+\w*Error\b|\w+Error\s*=\s*class\b|NamedUpload\s*=\s*class\b|class\s+NamedUpload\b)/);
      expect(code).toMatch(/(from\s*|require\(\s*)["']avatar-video["']/);
    }
  });
});
