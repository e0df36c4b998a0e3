/**
 * A call's progress reporter sends nothing once stopped: the call's result is then on its way, and a notification
 * after it names a progress token the client has forgotten ("unknown token", seen over stdio in CI). `stop` also waits
 * for the notifications already on their way, so none is written after the result.
 */
import { expect, it } from 'vitest';
import { ProgressReporter } from '../../src/mcp/progress-reporter.js';

const running = (percent: number) => ({ id: 'vid_1', status: 'PROCESSING', percent });

it('sends nothing after stop, and stop waits for a notification on its way', async () => {
  const sent: number[] = [];
  let finish = () => {};
  const reporter = new ProgressReporter(
    (progress) =>
      new Promise<void>((resolve) => {
        finish = () => {
          sent.push(progress);
          resolve();
        };
      }),
    () => {},
  );
  reporter.update(running(10));
  let stopped = false;
  const stopping = reporter.stop().then(() => {
    stopped = true;
  });
  await Promise.resolve();
  expect(stopped).toBe(false);
  finish();
  await stopping;
  expect(sent).toHaveLength(1);
  reporter.update(running(90));
  reporter.update({ id: 'vid_1', status: 'COMPLETE', percent: 100 });
  expect(sent).toHaveLength(1);
});
