/**
 * mediabunny costs about 85 ms and 18 MB to load. Only probing MP4/MOV and joining need it, so it is loaded on
 * first use: an app that only creates, polls and downloads never pays for it.
 */
let loading: Promise<typeof import('mediabunny')> | undefined;

export function loadMediabunny(): Promise<typeof import('mediabunny')> {
  loading ??= import('mediabunny');
  return loading;
}
