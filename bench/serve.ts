/**
 * Child process of the benches: runs the bench servers on its own CPU time, prints their origins as
 * one JSON line, and exits when its stdin closes (so it never outlives the bench). Arguments: the folder
 * of files the file host serves, and optionally the origin the API's redirects name instead of the file host's.
 */
import { startBenchServers } from './support/servers.js';

const servers = await startBenchServers(process.argv[2], process.argv[3]);
process.stdout.write(`${JSON.stringify({ api: servers.api, cdn: servers.cdn })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void servers.close().then(() => process.exit(0));
});
