import type { Video } from '../index.js';
import type { MediaInfo } from '../media/index.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB'];

/** `1536` -> `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  let unit = 0;
  while (bytes >= 1024 ** (unit + 1) && unit < UNITS.length - 1) unit++;
  return unit === 0 ? `${bytes} B` : `${(bytes / 1024 ** unit).toFixed(1)} ${UNITS[unit]}`;
}

/** `WAV audio, 5.2 s` / `PNG image, 720x1280` / `MP4 video, 12.0 s, 1280x720, with sound`. */
export function formatMedia(info: MediaInfo): string {
  const parts = [`${info.format.toUpperCase()} ${info.kind}`];
  if (info.durationSeconds !== undefined) parts.push(`${info.durationSeconds.toFixed(1)} s`);
  if (info.width !== undefined && info.height !== undefined) parts.push(`${info.width}x${info.height}`);
  if (info.hasAudio !== undefined) parts.push(info.hasAudio ? 'with sound' : 'silent');
  return parts.join(', ');
}

const time = (seconds: number | null | undefined) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : undefined);

/** A video as aligned `name  value` lines; absent fields are left out. */
export function formatVideo(video: Video): string[] {
  const rows: Array<[string, string | undefined]> = [
    ['id', video.id],
    ['status', video.status],
    ['progress', typeof video.progress === 'number' ? `${video.progress}%` : undefined],
    ['model', video.model ?? undefined],
    ['mode', video.generation_mode ?? undefined],
    ['aspect', video.aspect_ratio ?? undefined],
    ['created', time(video.created_at)],
    ['completed', time(video.completed_at)],
    ['error', video.error ? `${video.error.code}: ${video.error.message}` : undefined],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined).map(([name, value]) => `${name.padEnd(10)}${value}`);
}

/** One line per video, columns aligned, for `list`. */
export function formatVideoTable(videos: Video[]): string[] {
  const rows = videos.map((video) => [
    video.id,
    video.status,
    typeof video.progress === 'number' ? `${video.progress}%` : '',
    time(video.created_at) ?? '',
    video.model ?? '',
  ]);
  const header = ['ID', 'STATUS', 'PROGRESS', 'CREATED', 'MODEL'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
  return [header, ...rows].map((row) => line(row).trimEnd());
}
