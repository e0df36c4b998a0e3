/**
 * Download speed, CPU and memory: an MP4 (ftyp, moov, then a random mdat) behind a redirect from an API
 * origin to a file-host origin (plain node:http servers in a child process), fetched by the SDK's
 * `download`, by raw undici `request` + `pipeline` into `createWriteStream`, and by `curl -L -o`,
 * interleaved over several rounds, each in a fresh process (the Node ones compiled as the package is:
 * bench/download-*.ts). The SDK speaks HTTP only through undici; it also checks the file's boxes and
 * flushes it to disk before renaming it into place, which the others do not.
 *
 * Two modes:
 * - loopback (default): 20 MB and 256 MiB straight over loopback. Nothing limits the rate but the CPU, so
 *   this measures CPU per byte, not what a user's download takes.
 * - `--shaped`: 20 MB and 200 MB over links shaped like the internet (20 ms each way at 1 Gbit/s, 50 ms
 *   each way at 200 Mbit/s): every contender's API and file-host traffic goes through a delaying, pacing
 *   relay in this process (bench/support/shaped-link.ts), checked by a self-test before the rounds.
 *
 * Targets: SDK/undici throughput >= 1.0x, SDK CPU <= undici's, SDK peak RSS <= 120 MB and flat across sizes.
 *
 *   npx tsx bench/download.ts [--shaped] [rounds=3]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { wholeArgs } from './support/args.js';
import { compile } from './support/build.js';
import { type Case, report, speed } from './support/download-report.js';
import { type Children, CONTENDERS, type Contender, download, MiB, writeBody } from './support/download-runs.js';
import { selfTest } from './support/link-self-test.js';
import { type LinkShape, startShapedLink } from './support/shaped-link.js';
import { spawnServers } from './support/spawn.js';

const SHAPED = process.argv.includes('--shaped');
const [ROUNDS] = wholeArgs(['rounds', 3]);
const SIZES = SHAPED
  ? [
      { id: 'mb20', label: '20 MB', bytes: 20_000_000 },
      { id: 'mb200', label: '200 MB', bytes: 200_000_000 },
    ]
  : [
      { id: 'mb20', label: '20 MB', bytes: 20_000_000 },
      { id: 'mib256', label: '256 MiB', bytes: 256 * MiB },
    ];
const LINKS: LinkShape[] = [
  { label: '20 ms, 1 Gbit/s', oneWayMs: 20, bitsPerSecond: 1e9 },
  { label: '50 ms, 200 Mbit/s', oneWayMs: 50, bitsPerSecond: 200e6 },
];

/** Where the contenders find the API: its origin as they see it, and the link they reach it over. */
interface Route {
  link: string;
  api: string;
}

/** Servers (and, shaped, the relays in front of them); resolves with the routes to the API and how to stop it all. */
async function setUp(dir: string): Promise<{ routes: Route[]; stop(): Promise<void> }> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne();
  };
  try {
    if (!SHAPED) {
      const servers = await spawnServers(dir);
      stops.push(servers.stop);
      return { routes: [{ link: 'loopback', api: servers.api }], stop };
    }
    const routes: Route[] = [];
    for (const shape of LINKS) {
      // One server process per link: its API redirects to the file host through that link's relay.
      const [apiLink, fileLink] = [await startShapedLink(shape), await startShapedLink(shape)];
      stops.push(apiLink.close, fileLink.close);
      const servers = await spawnServers(dir, fileLink.url);
      stops.push(servers.stop);
      apiLink.forwardTo(servers.api);
      fileLink.forwardTo(servers.cdn);
      console.log(await selfTest(apiLink, fileLink, `${SIZES[0]?.id}.mp4`));
      routes.push({ link: shape.label, api: apiLink.url });
    }
    return { routes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The rounds: every link and size, contenders in an order that rotates each round. */
async function measure(children: Children, routes: Route[], dir: string): Promise<Case[]> {
  const cases = routes.flatMap((route) =>
    SIZES.map((spec) => ({ route, spec, link: route.link, size: spec.label, runs: { sdk: [], undici: [], curl: [] } as Case['runs'] })),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const { route, spec: size, runs } of cases) {
      // Rotate the order each round, so no contender always follows the same one.
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length] as Contender);
      const line: string[] = [];
      for (const who of order) {
        const result = await download(children, who, route.api, size.id, join(dir, `out-${who}.mp4`));
        if (result.bytes !== size.bytes) throw new Error(`${who} saved ${result.bytes} of ${size.bytes} bytes`);
        runs[who].push(result);
        line.push(`${who} ${speed(result).toFixed(0)} MiB/s${result.peakRssMB ? ` (RSS ${result.peakRssMB.toFixed(0)} MB)` : ''}`);
      }
      console.log(`round ${round + 1}, ${route.link}, ${size.label}: ${line.join(', ')}`);
    }
  }
  return cases;
}

const dir = await mkdtemp(join(tmpdir(), 'avatar-bench-'));
const built = await compile(['bench/download-sdk.ts', 'bench/download-undici.ts']);
const [sdk, undici] = built.paths as [string, string];
let stop: (() => Promise<void>) | undefined;
try {
  for (const size of SIZES) writeBody(join(dir, `${size.id}.mp4`), size.bytes);
  console.log(`load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores: other work on the machine skews wall times`);
  const setup = await setUp(dir);
  stop = setup.stop;
  const cases = await measure({ sdk, undici }, setup.routes, dir);
  console.log(`\n${report(cases, ROUNDS)}`);
} finally {
  await stop?.();
  await built.remove();
  await rm(dir, { recursive: true, force: true });
}
