/**
 * The two pieces of msw the mock uses. The build bundles them, with the ES-module-only packages they depend on
 * (rettime and others), into each format of avatar-video/testing and into the command's mock chunk (tsup.config.ts):
 * the mock needs no msw in the user's project, ignores whichever msw is there, and loads under Jest's CommonJS mode,
 * which cannot require ES modules.
 */
export { getResponse, http } from 'msw';
