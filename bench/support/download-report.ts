import { type Contender, MiB, type Run } from './download-runs.js';

/** One row of the report: a size downloaded over one link, with every contender's runs. */
export interface Case {
  link: string;
  size: string;
  runs: Record<Contender, Run[]>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
export const speed = (r: Run) => r.bytes / MiB / (r.ms / 1000);
const cpuPerGiB = (r: Run) => (r.cpuMs ?? Number.NaN) / 1000 / (r.bytes / (1024 * MiB));

/** `a / b / c`, each figure to `digits` places. */
const trio = (values: number[], digits: number) => values.map((v) => (Number.isNaN(v) ? 'n/a' : v.toFixed(digits))).join(' / ');

function row({ link, size, runs }: Case): string {
  const who = ['sdk', 'undici', 'curl'] as const;
  const of = (f: (r: Run) => number) => who.map((w) => median(runs[w].map(f)));
  const [sdk, undici, curl] = of(speed) as [number, number, number];
  const cpu = of(cpuPerGiB);
  const worstRss = who.map((w) => Math.max(...runs[w].map((r) => r.peakRssMB ?? Number.NaN)));
  const startedRss = median(runs.sdk.map((r) => r.baseRssMB ?? Number.NaN));
  return [
    link,
    size,
    trio(
      of((r) => r.ms / 1000),
      2,
    ),
    trio([sdk, undici, curl], 0),
    `${(sdk / undici).toFixed(2)}x`,
    `${(sdk / curl).toFixed(2)}x`,
    trio(cpu, 2),
    `${((cpu[0] as number) / (cpu[1] as number)).toFixed(2)}x`,
    `${trio(worstRss, 0)} (sdk ${startedRss.toFixed(0)} at start)`,
  ].join(' | ');
}

/** The medians as a markdown table, one row per link and size, and what its columns mean. */
export function report(cases: Case[], rounds: number): string {
  const header = [
    'link',
    'size',
    'wall s (sdk / undici / curl)',
    'MiB/s (sdk / undici / curl)',
    'SDK/undici',
    'SDK/curl',
    'CPU s/GiB (sdk / undici / curl)',
    'CPU SDK/undici',
    'peak RSS MB (sdk / undici / curl)',
  ];
  return [
    `Medians over ${rounds} rounds (peak RSS: the worst round), each download in a fresh process:`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...cases.map((c) => `| ${row(c)} |`),
    '',
    'wall s: start of the download to the file closed (curl: its time_total), no process start-up.',
    'SDK/undici, SDK/curl: throughput ratios (above 1.00x: the SDK is faster).',
    'CPU s/GiB: user + system CPU seconds of the downloading process per GiB saved; CPU SDK/undici: below 1.00x, the SDK spends less.',
    'peak RSS MB: VmHWM of the Node children, GNU time %M for curl.',
    'Targets: SDK/undici >= 1.0x, CPU SDK/undici <= 1.0x, SDK peak RSS <= 120 MB and flat across sizes.',
  ].join('\n');
}
