import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file imports or re-exports (type-only imports included, unless `types` is false), as written. */
function specifiers(file: string, types = true): string[] {
  const text = readFileSync(file, 'utf8');
  const from = types
    ? /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm
    : /^\s*(?:import|export)\s(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm;
  return [
    ...text.matchAll(from),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);
}

const files = sourceFiles(SRC);
const name = (file: string) => relative(SRC, file);
/** package.json's `imports`: `#platform` is the runtime's platform, by the export conditions. */
const PLATFORM_IMPORT = JSON.parse(readFileSync(join(SRC, '../package.json'), 'utf8')).imports['#platform'] as Record<string, string>;
/** What `#platform` is under the web conditions and else (Node, Bun, Deno, and tsc, vitest and the Node builds). */
const PLATFORMS = {
  web: name(resolve(SRC, '..', PLATFORM_IMPORT.browser as string)),
  node: name(resolve(SRC, '..', PLATFORM_IMPORT.default as string)),
};

/** The modules `file` imports, `#platform` as the platform of `runtime`. */
function importsOf(file: string, runtime: keyof typeof PLATFORMS): string[] {
  return localImports(file, specifiers(file), runtime);
}

/** The source files `specs`, as `file` wrote them, name: the relative ones, and `#platform` as the platform of `runtime`. */
function localImports(file: string, specs: string[], runtime: keyof typeof PLATFORMS = 'node'): string[] {
  return specs.flatMap((spec) => {
    if (spec === '#platform') return [PLATFORMS[runtime]];
    return spec.startsWith('.') ? [name(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))] : [];
  });
}

const graph = new Map(files.map((file) => [name(file), importsOf(file, 'node')]));
/** The same modules as the web build resolves them (`#platform` under the browser condition). */
const webGraph = new Map(files.map((file) => [name(file), importsOf(file, 'web')]));

/** Every file `entry` reaches by relative imports (and `#platform` as Node's), itself included. */
function reached(entry: string): Set<string> {
  return reachedIn(graph, entry);
}

/** Every file `entry` reaches in `graph`, itself included; past a file `beyond` refuses, nothing is followed. */
function reachedIn(graph: Map<string, string[]>, entry: string, beyond: (file: string) => boolean = () => true): Set<string> {
  const seen = new Set<string>();
  const visit = (node: string) => {
    if (seen.has(node)) return;
    seen.add(node);
    if (node !== entry && !beyond(node)) return;
    for (const next of graph.get(node) ?? []) visit(next);
  };
  visit(entry);
  return seen;
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/** The layers imports flow through, left to right; a file outside them (the shared top-level files, the entries of
 * other packages' users) has none. */
const LAYERS: Array<(file: string) => boolean> = [
  (file) => file === 'index.ts',
  (file) => file === 'client.ts',
  (file) => file.startsWith('resources/'),
  (file) => file.startsWith('lib/'),
  (file) => file.startsWith('internal/'),
];
const layerOf = (file: string) => {
  const index = LAYERS.findIndex((inLayer) => inLayer(file));
  return index === -1 ? undefined : index;
};
/** The top-level files any layer may import. */
const SHARED = ['errors.ts', 'schemas.ts', 'pagination.ts', 'uploads.ts', 'version.ts'];
/** The public entries the CLI uses as any user would. */
const CLI_ENTRIES = ['index.ts', 'media/index.ts'];
/** One rule each that the CLI shares with the library rather than copying (docs/architecture.md names them). */
const CLI_HELPERS = [
  'internal/atomic-file.ts',
  'internal/create-rate.ts',
  'internal/loopback.ts',
  'internal/output-path.ts',
  'internal/path.ts',
  'internal/retry.ts',
  'internal/shorten.ts',
  'internal/undici-dispatches.ts',
  'lib/job-error.ts',
  'lib/media/long-audio.ts',
];

/**
 * The webhook event and its signing, which `bullmq/` (the delivery processor) and `testing/` (`signedEvent`) import by
 * path: leaves but for each other and the `Video` type, the same code on the sending side as on the testing side.
 */
const WEBHOOK_EVENT = ['webhooks/event.ts', 'webhooks/sign.ts'];

/** The helpers the MCP server shares with the library (docs/architecture.md): the key's redaction, the output check, long audio. */
const MCP_HELPERS = ['internal/output-path.ts', 'internal/redact.ts', 'lib/media/long-audio.ts'];

/** `file: specifier` for each node: module or undici that `of` import: what a web-standard entry must have none of. */
const platformImports = (of: string[]) =>
  of.flatMap((file) =>
    specifiers(file)
      .filter((spec) => /^node:|^undici$/.test(spec))
      .map((spec) => `${name(file)}: ${spec}`),
  );

/** `declare namespace X { export type { ... } }`: names only. */
function isTypeNamespace(statement: ts.Statement): boolean {
  return ts.isModuleDeclaration(statement) && (ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Ambient) !== 0;
}

/** A class whose only member is a constructor of one statement, `super(...)`: an entry's client or Videos, bound. */
function bindsThePlatform(statement: ts.Statement, file: ts.SourceFile): boolean {
  if (!ts.isClassDeclaration(statement) || !statement.heritageClauses) return false;
  return statement.members.every(
    (member) =>
      ts.isConstructorDeclaration(member) &&
      member.body?.statements.length === 1 &&
      /^super\(/.test((member.body.statements[0] as ts.Statement).getText(file)),
  );
}

describe('layers', () => {
  it('has no import cycle in src/, type-only imports included, with `#platform` as either runtime resolves it', () => {
    expect(PLATFORMS).toEqual({ web: 'web/platform.ts', node: 'platform/node-runtime.ts' });
    expect(findCycle(graph)).toBeUndefined();
    expect(findCycle(webGraph)).toBeUndefined();
  });

  it('keeps each platform beneath the client: internal/, the top-level files and the media limits type, nothing above', () => {
    // `#platform` reaches a platform from internal/ and lib/ (tracing, opening an upload, loading mediabunny): what a
    // platform imports may not lead back up. Entries construct the one client with theirs.
    const platforms = [...graph.keys()].filter((file) => file.startsWith('platform/') || file === PLATFORMS.web);
    expect(platforms.sort()).toEqual(['platform/node-runtime.ts', 'platform/node.ts', 'web/platform.ts']);
    const reach = platforms.flatMap((platform) =>
      (graph.get(platform) ?? [])
        .filter((dep) => !/^(internal\/|platform\/)/.test(dep) && !SHARED.includes(dep) && dep !== 'lib/media/types.ts')
        .map((dep) => `${platform} -> ${dep}`),
    );
    expect(reach).toEqual([]);
    const importers = (platform: string) => [...graph].filter(([, deps]) => deps.includes(platform)).map(([file]) => file);
    // The Node entry builds its client with it; the Node `Videos` names its content type.
    expect(importers('platform/node.ts')).toEqual(['index.ts', 'resources/file-videos.ts']);
    expect(importers(PLATFORMS.node).filter((file) => !/^(internal|lib)\//.test(file))).toEqual(['platform/node.ts']);
  });

  it('keeps lib/ and internal/ from importing the client or the resources', () => {
    const upward = [...graph].filter(
      ([file, deps]) => /^(lib|internal)\//.test(file) && deps.some((dep) => dep === 'client.ts' || dep.startsWith('resources/')),
    );
    expect(upward).toEqual([]);
  });

  it('keeps internal/ below lib/: nothing in internal/ imports lib/', () => {
    const upward = [...graph].filter(([file, deps]) => file.startsWith('internal/') && deps.some((dep) => dep.startsWith('lib/')));
    expect(upward).toEqual([]);
  });

  it('keeps lib/ off the HTTP path: its workflows take the endpoints port, never the transport or the send helpers', () => {
    const http = ['internal/transport.ts', 'internal/send.ts', 'internal/fetch-send.ts', 'internal/choose-http.ts'];
    const reaching = [...graph].filter(([file, deps]) => file.startsWith('lib/') && deps.some((dep) => http.includes(dep)));
    expect(reaching).toEqual([]);
  });

  it('keeps the HTTP seam’s port and its fetch implementation web-pure: no node: module, no undici, all the way down', () => {
    // What runs: type-only imports are erased from the build.
    const runs = (file: string) => specifiers(join(SRC, file), false);
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of runs(file).filter((spec) => spec.startsWith('.'))) {
        visit(name(resolve(dirname(join(SRC, file)), spec.replace(/\.js$/, '.ts'))));
      }
    };
    visit('internal/fetch-send.ts');
    const foreign = [...seen].flatMap((file) =>
      runs(file)
        .filter((spec) => !spec.startsWith('.'))
        .map((spec) => `${file}: ${spec}`),
    );
    expect(seen).toContain('internal/connection-problem.ts');
    expect(foreign).toEqual([]);
  });

  it('keeps bullmq/ on the public API: the main entry by its name, so the build holds one copy of each error class', () => {
    // Everything bullmq/ reaches by relative import is bundled into its entry: only leaf modules (pure rules of lib/,
    // internal/brand.ts) may be, so no copy of a class or of state.
    // Type-only imports are erased, so the bundle is what value imports reach; webhooks/ holds the event's pure rules.
    const valueGraph = new Map(files.map((file) => [name(file), localImports(file, specifiers(file, false))]));
    const bundled = [...reachedIn(valueGraph, 'bullmq/index.ts')].filter((file) => !file.startsWith('bullmq/'));
    // One exception, so that undici is loaded one way: its loader (and the lazy require it uses), which holds no
    // state but the module it loaded, leaving the process's global dispatcher alone.
    const UNDICI_LOADER = ['internal/undici-dispatches.ts', 'internal/lazy.ts', 'internal/once.ts'];
    const leaf = (file: string) => /^(lib|internal|webhooks)\//.test(file) && (valueGraph.get(file) ?? []).length === 0;
    expect(bundled.filter((file) => !leaf(file) && !UNDICI_LOADER.includes(file))).toEqual([]);
    // Outside it, only the relay command takes its processors, through its entry, and the secret's rule
    // (cli/relay/pieces.ts).
    const importers = [...graph].filter(([file, deps]) => !file.startsWith('bullmq/') && deps.some((dep) => dep.startsWith('bullmq/')));
    expect(importers.map(([file, deps]) => `${file} -> ${deps.filter((dep) => dep.startsWith('bullmq/'))}`)).toEqual([
      'cli/relay/pieces.ts -> bullmq/delivery.ts,bullmq/index.ts',
    ]);
  });

  it('keeps media/ to the helpers: no client, resource or HTTP, and of the top-level files only those the build shares', () => {
    const bundled = [...reached('media/index.ts')];
    // The entry re-exports lib/ only; what it reaches is bundled, except errors.ts and uploads.ts, which the build
    // takes from the main entry by its name (tsup.config.ts), and schemas.ts's constants.
    expect((graph.get('media/index.ts') ?? []).filter((dep) => !dep.startsWith('lib/'))).toEqual([]);
    expect(bundled.filter((file) => !file.includes('/')).sort()).toEqual(['errors.ts', 'schemas.ts', 'uploads.ts']);
    expect(bundled.filter((file) => /^(resources|bullmq|cli|testing)\/|^internal\/(transport|send)\.ts$/.test(file))).toEqual([]);
    // Only the CLI and the MCP server, users of the public entries, import it.
    expect([...graph].filter(([file, deps]) => !/^(media|cli|mcp)\//.test(file) && deps.some((dep) => dep.startsWith('media/')))).toEqual(
      [],
    );
  });

  it('keeps proxy/ web-standard and on its own: no node: module or undici, of the SDK only the shared errors and pure helpers', () => {
    // The build takes errors.ts from the main entry by its name (tsup.config.ts); schemas.ts is read for a type only
    // (its zod stays out); the internal helpers are leaves, bundled as they are.
    const PROXY_MAY_REACH = ['errors.ts', 'schemas.ts', 'internal/loopback.ts', 'internal/redact.ts', 'internal/redirect-rule.ts'];
    const proxyFiles = files.filter((file) => name(file).startsWith('proxy/'));
    const outside = proxyFiles.flatMap((file) =>
      (graph.get(name(file)) ?? [])
        .filter((dep) => !dep.startsWith('proxy/') && !PROXY_MAY_REACH.includes(dep))
        .map((dep) => `${name(file)} -> ${dep}`),
    );
    expect(outside).toEqual([]);
    const runtimeSchemas = proxyFiles.filter((file) =>
      /^\s*import\s+(?!type\b)[^;]*?from\s+'\.\.\/schemas\.js'/m.test(readFileSync(file, 'utf8')),
    );
    expect(runtimeSchemas.map(name)).toEqual([]);
    expect(PROXY_MAY_REACH.filter((dep) => dep.startsWith('internal/') && (graph.get(dep) ?? []).length > 0)).toEqual([]);
    expect(platformImports(proxyFiles)).toEqual([]);
    expect([...graph].filter(([file, deps]) => !file.startsWith('proxy/') && deps.some((dep) => dep.startsWith('proxy/')))).toEqual([]);
  });

  it('keeps webhooks/ web-standard and on its own: no node: module or undici, standardwebhooks, of the SDK the shared errors', () => {
    // The build takes errors.ts from the main entry by its name (tsup.config.ts) and fails on a node: import left in
    // its output; schemas.ts is read for the `Video` type only; internal/brand.ts is a leaf, bundled as it is.
    const WEBHOOKS_MAY_REACH = ['errors.ts', 'schemas.ts', 'internal/brand.ts'];
    const webhookFiles = files.filter((file) => name(file).startsWith('webhooks/'));
    const outside = webhookFiles.flatMap((file) =>
      (graph.get(name(file)) ?? [])
        .filter((dep) => !dep.startsWith('webhooks/') && !WEBHOOKS_MAY_REACH.includes(dep))
        .map((dep) => `${name(file)} -> ${dep}`),
    );
    expect(outside).toEqual([]);
    const packages = webhookFiles.flatMap((file) => specifiers(file).filter((spec) => !spec.startsWith('.')));
    expect([...new Set(packages)]).toEqual(['standardwebhooks']);
    const runtimeSchemas = webhookFiles.filter((file) =>
      /^\s*import\s+(?!type\b)[^;]*?from\s+'\.\.\/schemas\.js'/m.test(readFileSync(file, 'utf8')),
    );
    expect(runtimeSchemas.map(name)).toEqual([]);
    expect(platformImports(webhookFiles)).toEqual([]);
    // The event and its signing, which others import by path, reach no further than each other and the Video type.
    expect(
      WEBHOOK_EVENT.flatMap((file) => (graph.get(file) ?? []).filter((dep) => !WEBHOOK_EVENT.includes(dep) && dep !== 'schemas.ts')),
    ).toEqual([]);
    // Outside it, only bullmq/ and testing/'s signedEvent import webhooks/, and only the event and its signing.
    const importers = [...graph].flatMap(([file, deps]) =>
      file.startsWith('webhooks/') ? [] : deps.filter((dep) => dep.startsWith('webhooks/')).map((dep) => [file, dep] as const),
    );
    const allowed = ([file, dep]: readonly [string, string]) =>
      WEBHOOK_EVENT.includes(dep) && (file.startsWith('bullmq/') || file === 'testing/webhook.ts');
    expect(importers.filter((edge) => !allowed(edge)).map(([file, dep]) => `${file} -> ${dep}`)).toEqual([]);
  });

  it('keeps web/ its own entry and platform: no node: module or undici in its files; only `#platform` leads to it', () => {
    // The web build resolves `#platform` to web/platform.ts (the browser condition) and fails on any node: import
    // left (tsup.config.ts); here the web files are held to it, and no relative import of the Node side reaches web/.
    const webFiles = files.filter((file) => name(file).startsWith('web/'));
    expect(webFiles.map(name).sort()).toEqual(['web/index.ts', 'web/platform.ts']);
    expect(platformImports(webFiles)).toEqual([]);
    expect([...graph].filter(([file, deps]) => !file.startsWith('web/') && deps.some((dep) => dep.startsWith('web/')))).toEqual([]);
    // The web entry never reaches what only a filesystem allows: the Node platform, the file workflows' resource.
    const web = reachedIn(webGraph, 'web/index.ts');
    expect([...web].filter((file) => file === PLATFORMS.node || /^(resources\/file-videos|lib\/(long|batch)\/)/.test(file))).toEqual([]);
  });

  it('imports only rightwards: index -> client -> resources -> lib -> internal', () => {
    const backwards = [...graph].flatMap(([file, deps]) => {
      const own = layerOf(file);
      if (own === undefined) return [];
      return deps.filter((dep) => (layerOf(dep) ?? Number.POSITIVE_INFINITY) < own).map((dep) => `${file} -> ${dep}`);
    });
    expect(backwards).toEqual([]);
  });

  it('keeps the top-level files (errors, schemas, pagination, uploads, version) on internal/ and each other', () => {
    const reach = [...graph].flatMap(([file, deps]) =>
      SHARED.includes(file)
        ? deps.filter((dep) => !SHARED.includes(dep) && !dep.startsWith('internal/')).map((dep) => `${file} -> ${dep}`)
        : [],
    );
    expect(reach).toEqual([]);
  });

  it('keeps testing/ self-contained: the mock imports nothing of the SDK, signedEvent only the webhook event and its signing', () => {
    const allowed = (file: string, dep: string) =>
      dep.startsWith('testing/') || (file === 'testing/webhook.ts' && (WEBHOOK_EVENT.includes(dep) || dep === 'schemas.ts'));
    const outside = [...graph].flatMap(([file, deps]) =>
      file.startsWith('testing/') ? deps.filter((dep) => !allowed(file, dep)).map((dep) => `${file} -> ${dep}`) : [],
    );
    expect(outside).toEqual([]);
    // schemas.ts for the `Video` type only: its zod stays out of the mock.
    expect(/^\s*import\s+(?!type\b)[^;]*?from\s+'\.\.\/schemas\.js'/m.test(readFileSync(join(SRC, 'testing/webhook.ts'), 'utf8'))).toBe(
      false,
    );
  });

  it('keeps testing/ for its users: outside it only the CLI’s mock command imports it, through its entry point', () => {
    // As a user of avatar-video/testing would (`demo` takes the mock from the mock command); type-only imports count.
    const importers = [...graph].flatMap(([file, deps]) =>
      file.startsWith('testing/') ? [] : deps.filter((dep) => dep.startsWith('testing/')).map((dep) => `${file} -> ${dep}`),
    );
    expect([...new Set(importers)]).toEqual(['cli/commands/mock.ts -> testing/index.ts']);
  });

  it('keeps cli/ a user of the public entries, but for its named helpers; and nothing imports cli/', () => {
    const allowed = (file: string, dep: string) =>
      dep.startsWith('cli/') ||
      CLI_ENTRIES.includes(dep) ||
      CLI_HELPERS.includes(dep) ||
      (file === 'cli/commands/mock.ts' && dep === 'testing/index.ts') ||
      (file === 'cli/commands/mcp.ts' && dep.startsWith('mcp/')) ||
      (file === 'cli/relay/pieces.ts' && (dep === 'bullmq/index.ts' || dep === 'bullmq/delivery.ts'));
    const reach = [...graph].flatMap(([file, deps]) =>
      file.startsWith('cli/') ? deps.filter((dep) => !allowed(file, dep)).map((dep) => `${file} -> ${dep}`) : [],
    );
    expect(reach).toEqual([]);
    expect([...graph].filter(([file, deps]) => !file.startsWith('cli/') && deps.some((dep) => dep.startsWith('cli/')))).toEqual([]);
  });

  it('keeps mcp/ a user of the public entries, but for its named helpers; only the mcp command imports it', () => {
    // The MCP server is bundled into the command alone (tsup.config.ts): the library never reaches it.
    const reach = [...graph].flatMap(([file, deps]) =>
      file.startsWith('mcp/')
        ? deps
            .filter((dep) => !dep.startsWith('mcp/') && !CLI_ENTRIES.includes(dep) && !MCP_HELPERS.includes(dep))
            .map((dep) => `${file} -> ${dep}`)
        : [],
    );
    expect(reach).toEqual([]);
    const importers = [...graph].filter(([file, deps]) => !file.startsWith('mcp/') && deps.some((dep) => dep.startsWith('mcp/')));
    expect(importers.map(([file]) => file)).toEqual(['cli/commands/mcp.ts']);
  });

  it('keeps the entries free of code: they import and export, and index.ts builds the one client with its platform', () => {
    // An entry's `AvatarVideo` is the one client (client.ts) given the entry's platform and `Videos`: a constructor
    // of one `super` call, and nothing else, in a class whose namespace names the types users meet in it.
    const code = ['index.ts', 'web/index.ts', 'media/index.ts', 'proxy/index.ts', 'webhooks/index.ts'].flatMap((entry) => {
      const file = ts.createSourceFile(entry, readFileSync(join(SRC, entry), 'utf8'), ts.ScriptTarget.Latest);
      return file.statements
        .filter(
          (statement) =>
            !ts.isImportDeclaration(statement) &&
            !ts.isExportDeclaration(statement) &&
            !ts.isExportAssignment(statement) &&
            !isTypeNamespace(statement) &&
            !bindsThePlatform(statement, file),
        )
        .map((statement) => `${entry}: ${statement.getText(file).slice(0, 60)}`);
    });
    expect(code).toEqual([]);
  });

  it('keeps resources/ to endpoints and delegation: no logging and no limiter logic there', () => {
    const found = files
      .filter((file) => name(file).startsWith('resources/'))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/\.(debug|info|warn|error|throttled|admitted)\(|limiter\.run\(/g)].map(
          (m) => `${name(file)}: ${m[0]}`,
        ),
      );
    expect(found).toEqual([]);
  });

  it('keeps lib/long and lib/batch apart: neither imports the other (the resource hands generateLong to a batch)', () => {
    const crossing = [...graph].flatMap(([file, deps]) => {
      const other = file.startsWith('lib/long/') ? 'lib/batch/' : file.startsWith('lib/batch/') ? 'lib/long/' : undefined;
      return other ? deps.filter((dep) => dep.startsWith(other)).map((dep) => `${file} -> ${dep}`) : [];
    });
    expect(crossing).toEqual([]);
  });

  it('keeps internal/ free of video knowledge: no API route in its code, no job errors, no video schema', () => {
    const knowing = files
      .filter((file) => name(file).startsWith('internal/'))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
        const found = [
          ...code.matchAll(
            /\bv1\/|\b(\w+_reference|Video\w*Error|WaitTimeoutError|SegmentFailedError|BatchInputError|videoSchema|JobTrace)\b/g,
          ),
        ];
        const imported = [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'\.\.\/schemas\.js'/g)].flatMap((m) =>
          (m[1] as string).split(',').map((part) => part.replace(/\btype\b/, '').trim()),
        );
        const video = imported.filter((part) => /^Video/.test(part));
        return [...found.map((m) => m[0]), ...video].map((what) => `${name(file)}: ${what}`);
      });
    expect(knowing).toEqual([]);
  });

  it('keeps ai-sdk/ on the public API and `ai` types only: the main entry by its name, the media probe bundled as media/ has it', () => {
    // Of the SDK it reaches lib/media/ (the probe that sorts a call's inputs, as avatar-video/media bundles it) and
    // the shared files the build takes from the main entry; `ai` and `@ai-sdk/*` only in `import type`.
    const bundled = [...reached('ai-sdk/index.ts')].filter((file) => !file.startsWith('ai-sdk/'));
    expect(bundled.filter((file) => /^(resources|bullmq|cli|testing|mcp|media|proxy|web)\/|^(client|index)\.ts$/.test(file))).toEqual([]);
    const aiSdk = files.filter((file) => name(file).startsWith('ai-sdk/'));
    expect(aiSdk.flatMap((file) => specifiers(file).filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:')))).toEqual(
      expect.arrayContaining(['avatar-video']),
    );
    const runtime = files.flatMap((file) =>
      specifiers(file, false)
        .filter((spec) => /^(ai|@ai-sdk\/.*)$/.test(spec))
        .map((spec) => `${name(file)}: ${spec}`),
    );
    expect(runtime).toEqual([]);
    expect([...graph].filter(([file, deps]) => !file.startsWith('ai-sdk/') && deps.some((dep) => dep.startsWith('ai-sdk/')))).toEqual([]);
  });

  it('imports bullmq, an optional peer, for its types only', () => {
    const runtime = files
      .filter((file) => /^\s*import\s+(?!type\b)[^;]*?from\s+['"]bullmq['"]/m.test(readFileSync(file, 'utf8')))
      .map(name);
    expect(runtime).toEqual([]);
  });

  it('speaks HTTP only through undici: nothing but the mock (src/testing) imports node:net, node:tls or node:http', () => {
    // A server listens rather than sends: the mock. `mcp --http` is served by @hono/node-server, as the MCP SDK's own transport is.
    const servers = (file: string) => name(file).startsWith('testing/');
    const raw = files
      .filter((file) => !servers(file))
      .filter((file) => specifiers(file).some((spec) => /^(node:)?(net|tls|http|https|http2)$/.test(spec)))
      .map(name);
    expect(raw).toEqual([]);
  });
});
