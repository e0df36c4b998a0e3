#!/usr/bin/env bash
# Regenerates the small fixtures of the long-video tests (test/media/split-audio.test.ts, test/media/join-videos.test.ts), which
# CI cannot make itself (no ffmpeg there). Speech-like audio comes from test/helpers/speech.ts, so the tests know
# where its pauses are. Needs ffmpeg with libmp3lame and libx264. Run from anywhere: ./scripts/make-long-fixtures.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/test/fixtures/long"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ff=(ffmpeg -hide_banner -loglevel error -y)
mkdir -p "$out"

speech_wav() { # speech_wav SECONDS SEED PAUSES OUT
  (cd "$root" && node --import tsx -e "
    const { writeSpeechWav } = await import('./test/helpers/speech.ts');
    await writeSpeechWav('$4', $1, { seed: $2, pauses: $3 });")
}
# 8 kHz mono at 8 kbit/s (MPEG-2.5 Layer III, 72 ms frames): about 1 KB a second. No ID3 tags: bare frames.
mp3() { "${ff[@]}" -i "$1" -c:a libmp3lame -b:a 8k -ar 8000 -ac 1 -map_metadata -1 -fflags +bitexact -id3v2_version 0 -write_id3v1 0 "${@:3}" "$2"; }

speech_wav 60 1 true "$tmp/speech-60s.wav"
mp3 "$tmp/speech-60s.wav" "$out/speech-60s.mp3" -write_xing 0 # no header: copies concatenate into 3 and 30 minutes
speech_wav 61 2 true "$tmp/speech-61s.wav"
mp3 "$tmp/speech-61s.wav" "$out/speech-61s-xing.mp3" # with a Xing/LAME header, which segments must not carry
speech_wav 130 3 false "$tmp/steady-130s.wav"
mp3 "$tmp/steady-130s.wav" "$out/steady-130s.mp3" -write_xing 0
# MPEG-1 stereo (another side-info layout) with pink noise 40 dB down in the pauses: 32 kHz, 32 kbit/s.
speech_wav 65 5 true "$tmp/noisy-65s.wav"
"${ff[@]}" -i "$tmp/noisy-65s.wav" -f lavfi -i "anoisesrc=color=pink:amplitude=0.01:sample_rate=8000:seed=5:duration=65" \
  -filter_complex "[0][1]amix=inputs=2:duration=first:normalize=0,aresample=32000,pan=stereo|c0=c0|c1=0.8*c0" \
  -c:a libmp3lame -b:a 32k -map_metadata -1 -fflags +bitexact -id3v2_version 0 -write_id3v1 0 -write_xing 0 "$out/noisy-65s-stereo.mp3"

# A clip that cannot be joined to the mock's outputs: another size, and AAC at 44.1 kHz stereo.
"${ff[@]}" -f lavfi -i "testsrc=size=320x180:rate=25:duration=1" -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=1" \
  -c:v libx264 -profile:v main -pix_fmt yuv420p -crf 45 -g 25 -c:a aac -ac 2 -b:a 32k -shortest -movflags +faststart \
  -map_metadata -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact "$out/other-320x180-44k.mp4"

ls -l "$out"
