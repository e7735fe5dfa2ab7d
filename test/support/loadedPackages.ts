import { registerHooks } from 'node:module';

/**
 * Loaded with `--import` into a CLI process: at exit it writes, on stderr, one line naming every
 * npm package the process loaded (`loaded packages: kysely pg …`), so a test can say what a
 * command pays for at start.
 */
const packages = new Set<string>();
registerHooks({
  load(url, context, next) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    if (name) packages.add(name);
    return next(url, context);
  },
});
process.on('exit', () => process.stderr.write(`\nloaded packages: ${[...packages].sort().join(' ')}\n`));
