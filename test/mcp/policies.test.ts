import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AFTER_WAIT_SECONDS, callPlan, DEFAULT_MAX_WAIT_SECONDS, MAX_WAIT_CEILING_SECONDS, maxWaitFrom } from '../../src/mcp/budget.js';
import { CallEta, carriedEta } from '../../src/mcp/eta.js';
import { admitInput, admitOutput, defaultOutputFor, realRoots } from '../../src/mcp/paths.js';
import { HEARTBEAT_MS, isDue, type JobSnapshot, nextProgress, progressMessage, targetOf } from '../../src/mcp/progress-schedule.js';
import { RecentJobs } from '../../src/mcp/recent-jobs.js';
import { rootsFromEnvironment } from '../../src/mcp/roots.js';
import { useCleanup } from '../helpers/fixture.js';

const closers = useCleanup();

describe('the wait budget', () => {
  it('defaults under the 60 s clients allow; AVATAR_VIDEO_MCP_MAX_WAIT raises it, never past the ceiling', () => {
    expect(DEFAULT_MAX_WAIT_SECONDS).toBeLessThan(60);
    expect(maxWaitFrom(undefined)).toEqual({ seconds: DEFAULT_MAX_WAIT_SECONDS });
    expect(maxWaitFrom(' 90 ')).toEqual({ seconds: 90 });
    expect(maxWaitFrom('500')).toMatchObject({ seconds: MAX_WAIT_CEILING_SECONDS, warning: expect.stringMatching(/above 110/) });
    expect(maxWaitFrom('soon')).toMatchObject({ seconds: DEFAULT_MAX_WAIT_SECONDS, warning: expect.any(String) });
    expect(maxWaitFrom('2')).toMatchObject({ seconds: DEFAULT_MAX_WAIT_SECONDS });
  });

  it('a call waits what it asked, never into the time kept for saving, and ends within the budget', () => {
    expect(callPlan(1, 55)).toEqual({ waitMs: 1000, callMs: 55_000 });
    expect(callPlan(undefined, 55)).toEqual({ waitMs: 45_000, callMs: 55_000 });
    expect(callPlan(600, 55)).toEqual({ waitMs: (55 - AFTER_WAIT_SECONDS) * 1000, callMs: 55_000 });
    expect(callPlan(-3, 110)).toEqual({ waitMs: 0, callMs: 110_000 });
    for (const asked of [0, 1, 44.5, 45, 100, 1e6, undefined]) {
      for (const budget of [10, 55, 110]) {
        const plan = callPlan(asked, budget);
        expect(plan.waitMs).toBeLessThanOrEqual(plan.callMs - AFTER_WAIT_SECONDS * 1000);
        expect(plan.callMs).toBeLessThanOrEqual(MAX_WAIT_CEILING_SECONDS * 1000);
      }
    }
  });
});

describe('the progress schedule', () => {
  const job = (patch: Partial<JobSnapshot> = {}): JobSnapshot => ({ id: 'vid_7', status: 'PROCESSING', percent: 40, ...patch });

  it('notifies on each change of status or progress, and otherwise once a heartbeat is due', () => {
    expect(isDue(undefined, job(), 0)).toBe(true);
    expect(isDue(job(), job({ percent: 41 }), 10)).toBe(true);
    expect(isDue(job(), job({ status: 'COMPLETE' }), 10)).toBe(true);
    expect(isDue(job(), job(), HEARTBEAT_MS - 1)).toBe(false);
    expect(isDue(job(), job(), HEARTBEAT_MS)).toBe(true);
    expect(HEARTBEAT_MS).toBeLessThanOrEqual(10_000);
  });

  it('progress strictly increases, heartbeats included, and stays below the total until saved', () => {
    let last: number | undefined;
    const seen: number[] = [];
    const steps = [
      job({ percent: null }),
      job({ percent: null }),
      job({ percent: 30 }),
      job({ percent: 20 }),
      job({ percent: 100 }),
      job({ percent: 100 }),
    ];
    for (const snapshot of [...steps, ...Array.from({ length: 50 }, () => job({ percent: 100 }))]) {
      last = nextProgress(last, targetOf(snapshot));
      seen.push(last);
    }
    for (let index = 1; index < seen.length; index++) expect(seen[index]).toBeGreaterThan(seen[index - 1] ?? Number.POSITIVE_INFINITY);
    expect(Math.max(...seen)).toBeLessThan(100);
    expect(nextProgress(last, targetOf(job({ status: 'COMPLETE', percent: 100, saved: 1 })))).toBe(100);
  });

  it('the message names the id, status, percent and time left', () => {
    expect(progressMessage(job({ etaSeconds: 11.2 }))).toBe('video vid_7: PROCESSING 40%, about 12 s left');
    expect(progressMessage(job({ percent: null }))).toBe('video vid_7: PROCESSING progress unknown, time left unknown');
  });
});

describe('path admission', () => {
  let root: string;
  let outside: string;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'mcp-roots-')));
    outside = await realpath(await mkdtemp(join(tmpdir(), 'mcp-outside-')));
    closers.push(
      () => rm(root, { recursive: true, force: true }),
      () => rm(outside, { recursive: true, force: true }),
    );
    await writeFile(join(root, 'talk.wav'), 'x');
    await writeFile(join(outside, 'secret.wav'), 'x');
    await symlink(join(outside, 'secret.wav'), join(root, 'link.wav'));
    await symlink(outside, join(root, 'linked-folder'));
    await mkdir(join(root, 'folder'));
    await writeFile(join(root, 'taken.mp4'), 'x');
  });

  it('admits a file inside the roots, by absolute or relative path, as its real path', async () => {
    expect(await admitInput('audio_path', join(root, 'talk.wav'), [root])).toBe(join(root, 'talk.wav'));
    expect(await admitInput('audio_path', 'talk.wav', [root])).toBe(join(root, 'talk.wav'));
  });

  it('refuses a path outside, a symlink escaping, a folder, a URL and a missing file', async () => {
    await expect(admitInput('audio_path', join(outside, 'secret.wav'), [root])).rejects.toMatchObject({ code: 'outside_roots' });
    await expect(admitInput('audio_path', 'link.wav', [root])).rejects.toMatchObject({ code: 'outside_roots' });
    await expect(admitInput('audio_path', '../secret.wav', [root])).rejects.toMatchObject({ code: 'not_found' });
    await expect(admitInput('audio_path', 'folder', [root])).rejects.toMatchObject({ code: 'not_a_file' });
    await expect(admitInput('audio_path', 'https://example.com/a.wav', [root])).rejects.toMatchObject({ code: 'not_local' });
    await expect(admitInput('audio_path', 'data:audio/wav;base64,AAAA', [root])).rejects.toMatchObject({ code: 'not_local' });
  });

  it('admits an output in the roots; refuses an existing file without overwrite, a folder, and a folder link escaping', async () => {
    expect(await admitOutput('output_path', 'new.mp4', [root], false)).toBe(join(root, 'new.mp4'));
    await expect(admitOutput('output_path', 'taken.mp4', [root], false)).rejects.toMatchObject({ code: 'exists' });
    expect(await admitOutput('output_path', 'taken.mp4', [root], true)).toBe(join(root, 'taken.mp4'));
    await expect(admitOutput('output_path', 'folder', [root], true)).rejects.toMatchObject({ code: 'not_a_file' });
    await expect(admitOutput('output_path', 'linked-folder/out.mp4', [root], false)).rejects.toMatchObject({ code: 'outside_roots' });
    await expect(admitOutput('output_path', 'link.wav', [root], true)).rejects.toMatchObject({ code: 'not_a_file' });
  });

  it('takes roots from AVATAR_VIDEO_MCP_ROOTS, else the working directory; a missing root admits nothing', async () => {
    expect(rootsFromEnvironment({}, '/work/here')).toEqual({ fallback: ['/work/here'] });
    expect(rootsFromEnvironment({ AVATAR_VIDEO_MCP_ROOTS: `a${delimiter}/b` }, '/w')).toEqual({ fallback: ['/w/a', '/b'] });
    expect(await realRoots([root, join(root, 'missing')])).toEqual([root]);
  });

  it('names the default MP4 beside the audio, never the audio itself', () => {
    expect(defaultOutputFor('/media/talk.wav')).toBe('/media/talk.mp4');
    expect(defaultOutputFor('/media/talk.mp4')).toBe('/media/talk-video.mp4');
  });
});

describe('recent jobs', () => {
  it('keeps the last ones, newest first, and tells listeners of a new id or status only', () => {
    const recent = new RecentJobs(2);
    let changes = 0;
    recent.onChange(() => changes++);
    recent.note('a', 'PROCESSING');
    recent.note('a', 'PROCESSING');
    recent.note('b', 'PROCESSING');
    recent.note('c', 'COMPLETE');
    expect(recent.list().map((job) => job.id)).toEqual(['c', 'b']);
    expect(changes).toBe(3);
  });

  it('keeps where each video was saved, and the last estimated end of each job, beyond the listed ones', () => {
    const recent = new RecentJobs(1);
    recent.noteSaved('a', '/work/a.mp4');
    recent.note('b', 'PROCESSING');
    recent.noteFinish('b', 5000);
    expect(recent.list().map((job) => job.id)).toEqual(['b']);
    expect(recent.savedPath('a')).toBe('/work/a.mp4');
    expect(recent.savedPath('b')).toBeUndefined();
    expect(recent.finishOf('b')).toBe(5000);
  });
});

describe('the time left, carried from call to call', () => {
  it("reports the wait's own estimate once it has one; before that the last end estimated, counted down; none once past", () => {
    expect(carriedEta(12, false, 99_000, 0)).toBe(12);
    expect(carriedEta(undefined, false, 30_000, 10_000)).toBe(20);
    expect(carriedEta(undefined, false, 30_000, 30_000)).toBeUndefined();
    expect(carriedEta(undefined, false, undefined, 0)).toBeUndefined();
    // The wait's own estimate went away (the job stands still): the wait is believed, not the older one.
    expect(carriedEta(undefined, true, 30_000, 10_000)).toBeUndefined();
  });

  it('a call starts from what an earlier call of the process estimated for the same job, not for another', () => {
    const recent = new RecentJobs();
    expect(new CallEta(recent).of('a', 40, 0)).toBe(40);
    const next = new CallEta(recent);
    expect(next.of('a', undefined, 15_000)).toBe(25);
    expect(next.of('b', undefined, 15_000)).toBeUndefined();
    expect(next.of('a', 30, 16_000)).toBe(30);
    expect(next.of('a', undefined, 17_000)).toBeUndefined();
  });
});
