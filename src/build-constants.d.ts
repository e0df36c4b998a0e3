/**
 * Set by the build (tsup.config.ts): the path, relative to the built file, of the copy of mediabunny's Node bundle
 * that the package ships (dist/vendor/mediabunny.cjs), so that mediabunny is not a dependency users install.
 * Undefined where the sources run (vitest, tsx): they load the `mediabunny` package, a devDependency.
 */
declare const __VENDORED_MEDIABUNNY__: string | undefined;
