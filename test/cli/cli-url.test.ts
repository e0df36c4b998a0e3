import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { rawServer } from '../helpers/raw-server.js';

const closers = useCleanup();

it('`avatar-video url <id>` prints the signed address and asks nothing of the file host', async () => {
  const cdn = await rawServer((_req, res) => res.writeHead(200).end('video'));
  const api = await rawServer((_req, res) => res.writeHead(302, { location: `${cdn.url}/files/vid_1.mp4?sig=abc` }).end());
  closers.push(cdn.close, api.close);
  const result = await runCli(['--json', '--base-url', api.url, 'url', 'vid_1'], { env: { AVATAR_VIDEO_API_KEY: 'sk-cli-url-key-1234' } });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({ id: 'vid_1', url: `${cdn.url}/files/vid_1.mp4?sig=abc` });
  expect(api.requests.map((r) => r.url)).toEqual(['/v1/videos/vid_1/content']);
  expect(cdn.requests).toHaveLength(0);
});
