/**
 * `avatar-video`: the command-line tool. Built to dist/cli.js, with a shebang, as the package's `bin`.
 * Run `avatar-video --help`.
 */
import { run } from './run.js';

// exitCode rather than process.exit(): a result piped to another program is written out in full first.
process.exitCode = await run(process.argv);
