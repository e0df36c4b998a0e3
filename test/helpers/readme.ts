/**
 * The code blocks of README.md as a user copies them: each fenced block with its language, the line its code starts
 * on, the heading it sits under, and the markers written just above it (`<!-- fragment: ... -->`, `<!-- web: ... -->`),
 * so that every test that checks or runs a README block reads the same text the same way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface ReadmeBlock {
  /** The fence's language: `ts`, `js`, `sh`... */
  lang: string;
  /** The code, without the fences (and without the indentation of a block inside a list item). */
  code: string;
  /** The README line of the code's first line, counted from 1. */
  line: number;
  /** The nearest heading above, as written: `### Workers, Edge and browsers: the web entry`. */
  heading: string;
  /** The HTML comments `<!-- name: text -->` on the lines just above the fence, by name. */
  markers: Record<string, string>;
}

/** Languages whose blocks are TypeScript or JavaScript, each checked by test/e2e/readme-blocks.test.ts. */
export const CODE_LANGS = ['ts', 'typescript', 'tsx', 'mts', 'cts', 'js', 'javascript', 'jsx', 'mjs', 'cjs'];

/** Every fenced block of `text` (README.md's, unless given). */
export function readmeBlocks(text = readFileSync(join(root, 'README.md'), 'utf8')): ReadmeBlock[] {
  const lines = text.split('\n');
  const blocks: ReadmeBlock[] = [];
  let heading = '';
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^#{1,6} /.test(line)) heading = line;
    const fence = /^(\s*)```(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const [, indent = '', lang = ''] = fence;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trim() === '```');
    if (end < 0) throw new Error(`README.md:${index + 1}: a code block that never ends`);
    const code = lines.slice(index + 1, end).map((text) => (text.startsWith(indent) ? text.slice(indent.length) : text));
    blocks.push({ lang, code: code.join('\n'), line: index + 2, heading, markers: markersAbove(lines, index) });
    index = end;
  }
  return blocks;
}

/** The `<!-- name: text -->` comments directly above line `index` (one per line, blank lines between allowed). */
function markersAbove(lines: string[], index: number): Record<string, string> {
  const markers: Record<string, string> = {};
  for (let at = index - 1; at >= 0; at--) {
    const text = (lines[at] as string).trim();
    if (text === '') continue;
    const marker = /^<!-- ([a-z]+): ([\s\S]*) -->$/.exec(text);
    if (!marker) break;
    markers[marker[1] as string] = marker[2] as string;
  }
  return markers;
}

/** The blocks of `lang` under the README heading `heading` (exact text, `#`s included). */
export function blocksUnder(heading: string, langs: string[]): ReadmeBlock[] {
  const found = readmeBlocks().filter((block) => block.heading === heading && langs.includes(block.lang));
  if (!found.length) throw new Error(`README.md has no ${langs.join('/')} block under "${heading}"`);
  return found;
}
