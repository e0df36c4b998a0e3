/**
 * `avatar-video/ai-sdk` as built and installed: reachable by `import` and `require`, and loading nothing of `ai` or
 * `@ai-sdk/*` (their types only), so a Node 20 project that never touches the AI SDK pays nothing for it. The
 * consumer folder resolves the repository's node_modules, where `ai` is installed: a load of it would show.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const { dir: pkg } = await builtPackage();
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  work = await consumerFolder('ai-sdk-', closers);
});

/** The AI SDK's packages: `ai` and the `@ai-sdk/` scope. */
const AI_SDK = /^(?:ai|@ai-sdk\/[^/]+)(?:\/|$)/;

/** The bare module names a built file imports or requires. */
function specifiersOf(code: string): string[] {
  const found = [...code.matchAll(/\bfrom\s+["']([^"']+)["']|\brequire\(["']([^"']+)["']\)|\bimport\(["']([^"']+)["']\)/g)];
  return found.map((match) => (match[1] ?? match[2] ?? match[3]) as string);
}

describe('avatar-video/ai-sdk as built', () => {
  it.each(['index.js', 'index.cjs'])('dist/ai-sdk/%s imports nothing of the AI SDK at run time', async (file) => {
    const specifiers = specifiersOf(await readFile(join(pkg, 'dist', 'ai-sdk', file), 'utf8'));
    // The premise: the scan sees the file's imports (the main entry, by its name).
    expect(specifiers).toContain('avatar-video');
    expect(specifiers.filter((name) => AI_SDK.test(name))).toEqual([]);
  });

  it('the declarations name @ai-sdk/provider for its types only', async () => {
    const types = await readFile(join(pkg, 'dist', 'ai-sdk', 'index.d.ts'), 'utf8');
    expect(types).toMatch(/from '@ai-sdk\/provider'/);
  });

  it('require: the entry and a model of it load no AI SDK package (a hook on CommonJS loading sees every require)', async () => {
    const source = `
      const Module = require('node:module');
      const seen = new Set();
      const original = Module._load;
      Module._load = function (request, ...rest) { seen.add(request); return original.call(this, request, ...rest); };
      const entry = require('avatar-video/ai-sdk');
      const model = entry.createAvatarVideo({ apiKey: 'sk-probe-1', baseURL: 'http://127.0.0.1:9' }).video('service-avatar-x');
      console.log(JSON.stringify({ exports: Object.keys(entry).sort(), modelId: model.modelId, loaded: [...seen] }));`;
    await writeFile(join(work, 'probe.cjs'), source);
    const { stdout } = await run(process.execPath, [join(work, 'probe.cjs')], { cwd: work });
    const seen = JSON.parse(stdout) as { exports: string[]; modelId: string; loaded: string[] };
    expect(seen.exports).toEqual(expect.arrayContaining(['avatarVideo', 'createAvatarVideo']));
    expect(seen.modelId).toBe('service-avatar-x');
    // The premise: the hook sees the entry's own requires.
    expect(seen.loaded).toContain('avatar-video');
    expect(seen.loaded.filter((request) => AI_SDK.test(request))).toEqual([]);
  });

  it('import: the ESM build loads and makes a model', async () => {
    const source = `const entry = await import('avatar-video/ai-sdk');
      const model = entry.createAvatarVideo({ apiKey: 'sk-probe-1', baseURL: 'http://127.0.0.1:9' }).videoModel('any-model');
      console.log(JSON.stringify({ modelId: model.modelId, provider: model.provider }));`;
    await writeFile(join(work, 'probe.mjs'), source);
    const { stdout } = await run(process.execPath, [join(work, 'probe.mjs')], { cwd: work });
    expect(JSON.parse(stdout)).toMatchObject({ modelId: 'any-model' });
  });
});
