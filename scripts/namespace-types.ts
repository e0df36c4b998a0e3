/**
 * Makes `AvatarVideo.Video` (and every other type the entry exports) compile whichever declaration file TypeScript
 * picks. index.d.cts merges all the named exports into the `AvatarVideo` namespace (scripts/commonjs-entry.ts), so
 * a CommonJS file under node16 or nodenext (an `npm init -y` project) could name `AvatarVideo.Video`; index.d.ts,
 * which `bundler`, an ES module under node16/nodenext and `types` read, had only the namespace of src/index.ts. This
 * adds a second namespace to the ES declarations (the main entry's and the web entry's) with the entry's exported
 * types, as types only: the ES build's class carries no such properties at run time, so a class stays a named import
 * there (`AvatarVideo.APIError` is a compile error rather than an `undefined` at run time).
 *
 * Run after tsup and scripts/shared-declarations.ts (`npm run build` does): `tsx scripts/namespace-types.ts [outDir]`.
 * Running it twice changes nothing more.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CLASS = 'AvatarVideo';
const MARK = '/* avatar-video: exported types on the namespace */';
/** The ES declarations whose default export is the client class with its namespace. */
const ENTRIES = ['index.d.ts', 'web/index.d.ts'];

export async function addNamespaceTypes(outDir: string): Promise<void> {
  for (const entry of ENTRIES) {
    const path = join(outDir, entry);
    const text = await readFile(path, 'utf8');
    if (!text.includes(MARK)) await writeFile(path, namespaceTypes(text));
  }
}

/** `types` with a namespace merged into the class's that exports each `type` name of the export list it lacks. */
export function namespaceTypes(types: string): string {
  const lists = [...types.matchAll(/^export\s*\{([^}]*)\};?\s*$/gm)];
  if (lists.length !== 1) throw new Error(`the declarations do not end with one export list (found ${lists.length})`);
  const names = (lists[0]?.[1] ?? '').split(',').map((name) => name.trim());
  if (!names.includes(`${CLASS} as default`)) throw new Error(`the declarations do not export ${CLASS} as default`);
  const onNamespace = new Set(
    [...types.matchAll(new RegExp(`^declare namespace ${CLASS} \\{([^}]*)\\}`, 'gm'))].flatMap((match) =>
      (match[1] ?? '')
        .replace(/export\s+type\s*\{|\};?/g, '')
        .split(',')
        .map((name) => name.trim()),
    ),
  );
  const exported = names
    .map((name) => /^type\s+(\w+)$/.exec(name)?.[1])
    .filter((name): name is string => name !== undefined && !onNamespace.has(name));
  const namespace = [
    MARK,
    `// What \`import ${CLASS} from 'avatar-video'\` names as ${CLASS}.Video under every moduleResolution, as index.d.cts does.`,
    `declare namespace ${CLASS} {`,
    `  export type { ${exported.join(', ')} };`,
    '}',
    '',
  ].join('\n');
  return types.replace(lists[0]?.[0] ?? '', `${namespace}${lists[0]?.[0]}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await addNamespaceTypes(resolve(process.argv[2] ?? 'dist'));
}
