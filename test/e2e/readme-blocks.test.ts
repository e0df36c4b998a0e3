/**
 * Every TypeScript and JavaScript block of README.md compiles as a user's file against the packed package's types
 * (test/helpers/readme-check.ts says how each kind of block is checked, and what its markers mean). A failure names
 * the block's README line and heading, and the README line of each error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { CODE_LANGS, type ReadmeBlock, readmeBlocks } from '../helpers/readme.js';
import { checkBlocks } from '../helpers/readme-check.js';

const closers = useCleanup();
const blocks = readmeBlocks().filter((block) => CODE_LANGS.includes(block.lang));
/** The Workers block as the README had it before issue 37: the check must refuse it. */
const [stale] = readmeBlocks(`## Workers

<!-- web: a Worker -->
\`\`\`ts
import AvatarVideo, { MediaValidationError } from 'avatar-video';

export default {
  async fetch(request: Request, env: Env) {
    const client = new AvatarVideo({ apiKey: env.AVATAR_VIDEO_API_KEY, baseURL: env.AVATAR_VIDEO_BASE_URL });
    return Response.json(await client.videos.create({ audio_reference: await request.blob(), image_reference: await request.blob() }));
  },
};
\`\`\`
`) as [ReadmeBlock];
let results: Map<ReadmeBlock, string[]>;

beforeAll(async () => {
  await builtPackage();
  // Beside the installed package (which the folder's node_modules resolve to), and its dependencies (undici, bullmq).
  results = await checkBlocks(await consumerFolder('readme-blocks-', closers), [...blocks, stale]);
}, 300_000);

describe('README.md code blocks compile as users write them, against the packed package', () => {
  it('finds every block: the Quickstart, the Workers and Testing ones among them', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(20);
    const headings = blocks.map((block) => block.heading);
    for (const heading of ['## Quickstart', '### Workers, Edge and browsers: the web entry', '## Testing your app with the mock']) {
      expect(headings).toContain(heading);
    }
    // Fragments are few and each says what it assumes.
    const fragments = blocks.filter((block) => block.markers.fragment !== undefined);
    expect(fragments.length).toBeLessThanOrEqual(8);
    for (const block of fragments) expect(block.markers.fragment).toMatch(/\bdeclare /);
  });

  it('refuses a block that does not compile, naming the README line of each error', () => {
    expect(results.get(stale)).toEqual([
      "README.md:5: TS6133 'MediaValidationError' is declared but its value is never read.",
      "README.md:8: TS2304 Cannot find name 'Env'.",
    ]);
  });

  it.each(blocks.map((block) => [`README.md:${block.line} ${block.heading} (${block.lang})`, block] as const))('%s', (_name, block) => {
    expect(results.get(block)).toEqual([]);
  });
});
