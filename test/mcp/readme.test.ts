/**
 * The README's install snippets for MCP clients (## Agents (MCP)): each JSON config parses and starts the command
 * that exists (`npx -y avatar-video mcp`: the package's bin, and an `mcp` command in it), with the key and address
 * in the environment; the Claude Code line starts the same command.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';

const root = new URL('../../', import.meta.url);
const readme = await readFile(new URL('README.md', root), 'utf8');
const manifest = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as { name: string; bin: Record<string, string> };
useCleanup();

/** The README's `## Agents (MCP)` section, up to the next `## ` heading. */
function agentsSection(): string {
  const start = readme.indexOf('\n## Agents (MCP)\n');
  expect(start, 'README has a "## Agents (MCP)" section').toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

function blocks(section: string, language: string): string[] {
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1] ?? '');
}

interface ServerEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

describe('README: MCP install snippets', () => {
  it('every JSON config parses and runs `npx -y avatar-video mcp` with the key and address in its environment', () => {
    const configs = blocks(agentsSection(), 'json').map((text) => JSON.parse(text) as Record<string, Record<string, ServerEntry>>);
    expect(configs.length).toBeGreaterThanOrEqual(3); // Claude Desktop, Cursor, VS Code
    for (const config of configs) {
      const entry = (config.mcpServers ?? config.servers)?.['avatar-video'];
      expect(entry).toBeDefined();
      expect([entry?.command, ...(entry?.args ?? [])]).toEqual(['npx', '-y', manifest.name, 'mcp']);
      expect(Object.keys(entry?.env ?? {}).sort()).toEqual(['AVATAR_VIDEO_API_KEY', 'AVATAR_VIDEO_BASE_URL']);
    }
  });

  it('the Claude Code line starts the same command, the key in --env', () => {
    const line = blocks(agentsSection(), 'sh').find((text) => text.includes('claude mcp add')) ?? '';
    expect(line).toMatch(/--env AVATAR_VIDEO_API_KEY=/);
    expect(line).toMatch(/-- npx -y avatar-video mcp\s*$/);
  });

  it('`npx -y avatar-video` finds the bin of that name, and it has an `mcp` command with --http', async () => {
    expect(manifest.name).toBe('avatar-video');
    expect(manifest.bin['avatar-video']).toBeDefined();
    const help = await runCli(['mcp', '--help'], { cwd: fileURLToPath(root) });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--http/);
    expect(help.stdout).toMatch(/--port/);
  });
});
