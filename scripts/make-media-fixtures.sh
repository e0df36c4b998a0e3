#!/usr/bin/env bash
# Generates the media probe fixtures in test/fixtures/media and their manifest.json.
#
# Every file is small (low sample rates, tiny frames) and made with ffmpeg, sox or espeak-ng; the few variants
# no encoder writes (VBRI header, ID3v2.4 footer, APE tag, odd-sized WAV chunk, progressive JPEG, broken files)
# are assembled from those outputs with printf/dd. manifest.json records what each file was made with (duration,
# format, dimensions) or which failure it must produce, and the tolerance that applies and why.
#
# Usage: scripts/make-media-fixtures.sh   (needs ffmpeg/ffprobe, sox, espeak-ng on PATH)
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=test/fixtures/media
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT" && mkdir -p "$OUT"

# Bit-exact output without encoder version strings, so reruns give the same bytes.
ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
BITEXACT=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)

# Little/big-endian integers as raw bytes, and in-place patching.
bytes() { for b in "$@"; do printf "\\x$(printf %02x "$b")"; done; }
le16() { bytes $(($1 & 255)) $((($1 >> 8) & 255)); }
le32() { bytes $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
be16() { bytes $((($1 >> 8) & 255)) $(($1 & 255)); }
be32() { bytes $((($1 >> 24) & 255)) $((($1 >> 16) & 255)) $((($1 >> 8) & 255)) $(($1 & 255)); }
syncsafe() { bytes $((($1 >> 21) & 127)) $((($1 >> 14) & 127)) $((($1 >> 7) & 127)) $(($1 & 127)); }
patch() { dd of="$1" bs=1 seek="$2" conv=notrunc status=none; } # patch FILE OFFSET < bytes
size() { stat -c %s "$1"; }
packets() { ffprobe -v error -select_streams a:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$1"; }

MANIFEST=()
# ok FILE JSON-FIELDS NOTE: the probe must resolve with these fields (durationSeconds within toleranceSeconds).
ok() { MANIFEST+=("{\"file\":\"$1\",\"expect\":\"ok\",$2,\"note\":\"$3\"}"); }
# fails FILE CODE MENTION NOTE: the probe must reject with CODE and a message containing MENTION.
fails() { MANIFEST+=("{\"file\":\"$1\",\"expect\":\"$2\",\"mentions\":\"$3\",\"note\":\"$4\"}"); }
seconds() { awk "BEGIN { printf \"%.9g\", $1 }"; }

# --- sources --------------------------------------------------------------------------------------------------
espeak-ng -s 150 -w "$WORK/speech.wav" "Hello. This short recording drives the avatar. It speaks clearly, with pauses, so the encoders see real speech and silence."
# speech at RATE Hz, mono, exactly N samples (padded with silence): src RATE N OUT [extra ffmpeg output args...]
speech() { local rate=$1 n=$2 out=$3; shift 3; ff -i "$WORK/speech.wav" -af "aresample=$rate,apad,atrim=end_sample=$n" -ac 1 -ar "$rate" "${BITEXACT[@]}" "$@" "$out"; }

# --- WAV: exact to the sample ---------------------------------------------------------------------------------
wav_ok() { ok "$1" "\"kind\":\"audio\",\"format\":\"wav\",\"durationSeconds\":$(seconds "$2/$3"),\"toleranceSeconds\":$(seconds "0.5/$3")" "$4"; }
speech 8000 8000 "$OUT/wav-pcm16-1.0s.wav" -c:a pcm_s16le;              wav_ok wav-pcm16-1.0s.wav 8000 8000 'lower bound: 8000 samples at 8 kHz'
speech 8000 7200 "$OUT/wav-pcm16-0.9s.wav" -c:a pcm_s16le;              wav_ok wav-pcm16-0.9s.wav 7200 8000 'below the lower bound'
speech 2000 120000 "$OUT/wav-u8-60.0s.wav" -c:a pcm_u8;                 wav_ok wav-u8-60.0s.wav 120000 2000 'upper bound: 8-bit PCM at 2 kHz keeps it small'
speech 2000 121000 "$OUT/wav-u8-60.5s.wav" -c:a pcm_u8;                 wav_ok wav-u8-60.5s.wav 121000 2000 'above the upper bound'
speech 8000 12000 "$OUT/wav-s24-extensible.wav" -c:a pcm_s24le;         wav_ok wav-s24-extensible.wav 12000 8000 '24-bit PCM, written as WAVE_FORMAT_EXTENSIBLE'
speech 8000 4000 "$OUT/wav-s32.wav" -c:a pcm_s32le;                     wav_ok wav-s32.wav 4000 8000 '32-bit PCM (extensible)'
speech 8000 4321 "$OUT/wav-f32.wav" -c:a pcm_f32le;                     wav_ok wav-f32.wav 4321 8000 '32-bit float'
speech 8000 2345 "$OUT/wav-f64.wav" -c:a pcm_f64le;                     wav_ok wav-f64.wav 2345 8000 '64-bit float'
speech 8000 16000 "$OUT/wav-mulaw.wav" -c:a pcm_mulaw;                  wav_ok wav-mulaw.wav 16000 8000 'G.711 mu-law with a fact chunk'
speech 8000 15999 "$OUT/wav-alaw.wav" -c:a pcm_alaw;                    wav_ok wav-alaw.wav 15999 8000 'G.711 A-law with a fact chunk, odd data length (pad byte)'
speech 8000 9000 "$WORK/stereo.wav" -c:a pcm_s16le
ff -i "$WORK/stereo.wav" -ac 2 "${BITEXACT[@]}" "$OUT/wav-stereo.wav";  wav_ok wav-stereo.wav 9000 8000 '16-bit stereo'
# IMA ADPCM packs 2041 samples per 1024-byte mono block; a whole number of blocks makes the fact count exact.
speech 8000 8164 "$OUT/wav-ima-adpcm.wav" -c:a adpcm_ima_wav;           wav_ok wav-ima-adpcm.wav 8164 8000 'IMA ADPCM, length from the fact chunk'
cp "$OUT/wav-ima-adpcm.wav" "$OUT/wav-ima-adpcm-nofact.wav"
printf 'junk' | patch "$OUT/wav-ima-adpcm-nofact.wav" 40;               wav_ok wav-ima-adpcm-nofact.wav 8164 8000 'IMA ADPCM whose fact chunk was renamed: length from the block layout'
speech 16000 24000 "$OUT/wav-mp3-inside.wav" -c:a libmp3lame -b:a 24k -f wav
ok wav-mp3-inside.wav "\"kind\":\"audio\",\"format\":\"wav\",\"durationSeconds\":1.5,\"toleranceSeconds\":$(seconds "(1105 + 2 * 576) / 16000")" \
  'MP3 in a WAV (format 0x55): the fact chunk counts the encoder delay too'
speech 8000 6400 "$WORK/gsm-src.wav" -c:a pcm_s16le
sox "$WORK/gsm-src.wav" -e gsm-full-rate "$OUT/wav-gsm.wav";            wav_ok wav-gsm.wav 6400 8000 'GSM 6.10 (sox), length from the fact chunk'
speech 8000 5000 "$OUT/wav-list-before-data.wav" -c:a pcm_s16le -map_metadata -1 -metadata title='Take one' -metadata artist='Avatar'
wav_ok wav-list-before-data.wav 5000 8000 'LIST/INFO chunk between fmt and data'
# The same PCM with an odd-sized chunk before data, padded as the RIFF spec says; unpadded, ffmpeg and sox
# cannot find the data chunk either, so it is a broken file.
speech 8000 6000 "$WORK/plain.wav" -c:a pcm_s16le   # 44-byte header: RIFF, fmt (16), data
for variant in padded unpadded; do
  f="$OUT/wav-odd-chunk-$variant.wav"
  [ $variant = unpadded ] && f="$OUT/bad-wav-odd-chunk-unpadded.wav"
  { head -c 36 "$WORK/plain.wav"; printf 'odd '; le32 3; printf 'abc'; [ $variant = padded ] && printf '\0'; tail -c +37 "$WORK/plain.wav"; } > "$f"
  le32 $(( $(size "$f") - 8 )) | patch "$f" 4
done
wav_ok wav-odd-chunk-padded.wav 6000 8000 'odd-sized chunk and its pad byte before data'
fails bad-wav-odd-chunk-unpadded.wav unreadable_media 'no data chunk' 'odd-sized chunk without its pad byte'
# Streamed WAVs: ffmpeg writing to a pipe leaves 0xFFFFFFFF in both sizes; other recorders leave 0.
speech 8000 10000 - -c:a pcm_s16le -f wav | cat > "$OUT/wav-streamed-ffffffff.wav"
wav_ok wav-streamed-ffffffff.wav 10000 8000 'RIFF and data sizes 0xFFFFFFFF: length from the file size'
cp "$WORK/plain.wav" "$OUT/wav-streamed-zero.wav"
le32 0 | patch "$OUT/wav-streamed-zero.wav" 4; le32 0 | patch "$OUT/wav-streamed-zero.wav" 40
wav_ok wav-streamed-zero.wav 6000 8000 'RIFF and data sizes 0: length from the file size'
# Broken WAVs.
head -c $((44 + 8000)) "$OUT/wav-pcm16-1.0s.wav" > "$OUT/bad-wav-truncated.wav"
fails bad-wav-truncated.wav unreadable_media truncated 'data chunk declares 16000 bytes, 8000 present'
head -c 30 "$OUT/wav-pcm16-1.0s.wav" > "$OUT/bad-wav-header-cut.wav"
fails bad-wav-header-cut.wav unreadable_media 'fmt chunk' 'cut inside the fmt chunk'
cp "$WORK/plain.wav" "$OUT/bad-wav-zero-channels.wav"; le16 0 | patch "$OUT/bad-wav-zero-channels.wav" 22
fails bad-wav-zero-channels.wav unreadable_media '0 channels' 'fmt chunk says 0 channels'
head -c 36 "$WORK/plain.wav" > "$OUT/bad-wav-no-data.wav"; le32 28 | patch "$OUT/bad-wav-no-data.wav" 4
fails bad-wav-no-data.wav unreadable_media 'no data chunk' 'RIFF/WAVE/fmt and nothing else'

# --- MP3 ------------------------------------------------------------------------------------------------------
# With an Info/Xing + LAME tag (FFmpeg writes one) the encoder delay and padding are trimmed: exact to the sample.
# Without one, whole frames are counted: up to ~1105 samples of encoder delay plus one frame of padding more.
mp3_ok() { ok "$1" "\"kind\":\"audio\",\"format\":\"mp3\",\"durationSeconds\":$(seconds "$2/$3"),\"toleranceSeconds\":$(seconds "$4/$3")" "$5"; }
MP3=(-c:a libmp3lame -id3v2_version 0)
speech 8000 8000 "$OUT/mp3-1.0s.mp3" "${MP3[@]}" -b:a 8k;               mp3_ok mp3-1.0s.mp3 8000 8000 1 'lower bound, MPEG-2.5 CBR, Info + LAME tag'
speech 8000 7200 "$OUT/mp3-0.9s.mp3" "${MP3[@]}" -b:a 8k;               mp3_ok mp3-0.9s.mp3 7200 8000 1 'below the lower bound'
speech 8000 480000 "$OUT/mp3-60.0s.mp3" "${MP3[@]}" -b:a 8k;            mp3_ok mp3-60.0s.mp3 480000 8000 1 'upper bound'
speech 8000 484000 "$OUT/mp3-60.5s.mp3" "${MP3[@]}" -b:a 8k;            mp3_ok mp3-60.5s.mp3 484000 8000 1 'above the upper bound'
speech 32000 64000 "$OUT/mp3-mpeg1-cbr.mp3" "${MP3[@]}" -b:a 32k;       mp3_ok mp3-mpeg1-cbr.mp3 64000 32000 1 'MPEG-1 Layer III CBR 32 kHz, Info tag'
speech 16000 48000 "$OUT/mp3-mpeg2-vbr-xing.mp3" "${MP3[@]}" -q:a 6;    mp3_ok mp3-mpeg2-vbr-xing.mp3 48000 16000 1 'MPEG-2 VBR with Xing + LAME tag'
speech 11025 22050 "$OUT/mp3-mpeg25-vbr-xing.mp3" "${MP3[@]}" -q:a 7;   mp3_ok mp3-mpeg25-vbr-xing.mp3 22050 11025 1 'MPEG-2.5 VBR with Xing'
speech 32000 48000 "$OUT/mp3-mpeg1-cbr-noinfo.mp3" "${MP3[@]}" -b:a 32k -write_xing 0
mp3_ok mp3-mpeg1-cbr-noinfo.mp3 48000 32000 $((1105 + 2 * 1152)) 'CBR without Info tag: frames walked'
speech 16000 48000 "$OUT/mp3-mpeg2-vbr-noxing.mp3" "${MP3[@]}" -q:a 6 -write_xing 0
mp3_ok mp3-mpeg2-vbr-noxing.mp3 48000 16000 $((1105 + 2 * 576)) 'VBR without any header: frames walked'
speech 44100 110250 "$OUT/mp3-mpeg1-vbr-noxing.mp3" "${MP3[@]}" -q:a 8 -write_xing 0
mp3_ok mp3-mpeg1-vbr-noxing.mp3 110250 44100 $((1105 + 2 * 1152)) 'MPEG-1 VBR 44.1 kHz without any header'
# VBRI (Fraunhofer) header: no encoder here writes one, so prepend a VBRI frame to the header-less VBR stream.
src="$OUT/mp3-mpeg2-vbr-noxing.mp3"; frames=$(packets "$src"); vbri_len=288 # MPEG-2 16 kHz mono 64 kbps frame
{ bytes 0xff 0xf3 0x88 0xc0; head -c 32 /dev/zero; printf 'VBRI'; be16 1; be16 576; be16 75
  be32 $(( $(size "$src") + vbri_len )); be32 "$frames"; be16 0; be16 1; be16 2; be16 1
  head -c $((vbri_len - 4 - 32 - 26)) /dev/zero; cat "$src"; } > "$OUT/mp3-vbri.mp3"
mp3_ok mp3-vbri.mp3 48000 16000 $((1105 + 2 * 576)) 'VBRI header frame count (no gapless trim in VBRI)'
# Tags: ID3v2.4 with a footer, a large ID3v2 tag, ID3v1, an APE tag before ID3v1, zeros before the first frame.
src="$OUT/mp3-mpeg1-cbr.mp3"
{ printf 'ID3'; bytes 4 0 0x10; syncsafe 16; printf 'TIT2'; syncsafe 6; bytes 0 0 3; printf 'Hello'; printf '3DI'; bytes 4 0 0x10; syncsafe 16; cat "$src"; } > "$OUT/mp3-id3v24-footer.mp3"
mp3_ok mp3-id3v24-footer.mp3 64000 32000 1 'ID3v2.4 tag with footer flag'
{ printf 'ID3'; bytes 3 0 0; syncsafe 40000; printf 'TIT2'; be32 6; bytes 0 0 0; printf 'Hello'; head -c $((40000 - 16)) /dev/zero; cat "$src"; } > "$OUT/mp3-id3v2-large.mp3"
mp3_ok mp3-id3v2-large.mp3 64000 32000 1 '40 KB ID3v2 tag (padding) before the audio'
speech 32000 64000 "$OUT/mp3-id3v1.mp3" -c:a libmp3lame -b:a 32k -write_id3v1 1 -metadata title=Hello
mp3_ok mp3-id3v1.mp3 64000 32000 1 'ID3v2.4 at the start and ID3v1 at the end (ffmpeg)'
item() { le32 ${#2}; le32 0; printf '%s\0%s' "$1" "$2"; }
ape_items() { item Title Hello; item Artist Avatar; }
ape_size=$(( $(ape_items | wc -c) + 32 ))
{ cat "$src"; printf 'APETAGEX'; le32 2000; le32 "$ape_size"; le32 2; le32 $((0xA0000000)); head -c 8 /dev/zero
  ape_items; printf 'APETAGEX'; le32 2000; le32 "$ape_size"; le32 2; le32 $((0x80000000)); head -c 8 /dev/zero
  printf 'TAG'; head -c 125 /dev/zero; } > "$OUT/mp3-ape-id3v1.mp3"
mp3_ok mp3-ape-id3v1.mp3 64000 32000 1 'APEv2 tag (with header) then ID3v1 at the end'
{ printf 'ID3'; bytes 3 0 0; syncsafe 0; head -c 700 /dev/zero; cat "$OUT/mp3-mpeg2-vbr-noxing.mp3"; } > "$OUT/mp3-zeros-before-frames.mp3"
mp3_ok mp3-zeros-before-frames.mp3 48000 16000 $((1105 + 2 * 576)) '700 zero bytes between the ID3 tag and the first frame'
{ head -c 500 /dev/zero; cat "$OUT/mp3-mpeg2-vbr-noxing.mp3"; } > "$OUT/mp3-zeros-no-tag.mp3"
mp3_ok mp3-zeros-no-tag.mp3 48000 16000 $((1105 + 2 * 576)) '500 zero bytes and no tag before the first frame'
cp "$OUT/mp3-mpeg2-vbr-xing.mp3" "$OUT/mp3-named.wav"
mp3_ok mp3-named.wav 48000 16000 1 'an MP3 named .wav is MP3'
# Broken MP3s.
head -c $(( $(size "$OUT/mp3-mpeg1-cbr.mp3") / 2 )) "$OUT/mp3-mpeg1-cbr.mp3" > "$OUT/bad-mp3-truncated.mp3"
fails bad-mp3-truncated.mp3 unreadable_media truncated 'Info tag counts twice the bytes present'
{ printf 'ID3'; bytes 3 0 0; syncsafe 20; head -c 3000 /dev/zero; } > "$OUT/bad-mp3-no-frames.mp3"
fails bad-mp3-no-frames.mp3 unreadable_media 'no MP3 audio frames' 'an ID3 tag and zeros'
src="$OUT/mp3-mpeg2-vbr-noxing.mp3"; half=$(( $(size "$src") / 2 ))
{ head -c "$half" "$src"; head -c 12000 /dev/zero | tr '\0' 'U'; tail -c +$((half + 1)) "$src"; } > "$OUT/bad-mp3-garbage-inside.mp3"
fails bad-mp3-garbage-inside.mp3 unreadable_media corrupt '12 KB of non-MP3 bytes in the middle of the frames'

# --- Images ---------------------------------------------------------------------------------------------------
img_ok() { ok "$1" "\"kind\":\"image\",\"format\":\"$2\",\"width\":$3,\"height\":$4" "$5"; }
ff -f lavfi -i testsrc=size=64x36 -frames:v 1 "${BITEXACT[@]}" "$OUT/png-64x36.png";         img_ok png-64x36.png png 64 36 'PNG'
ff -f lavfi -i color=c=0x336699:s=1280x720 -frames:v 1 "${BITEXACT[@]}" "$OUT/png-1280x720.png"; img_ok png-1280x720.png png 1280 720 '720p PNG'
cp "$OUT/png-64x36.png" "$OUT/png-named.jpg";                                                  img_ok png-named.jpg png 64 36 'a PNG named .jpg is PNG'
{ cat "$OUT/png-64x36.png"; printf 'appended after IEND'; } > "$OUT/png-trailing-bytes.png";    img_ok png-trailing-bytes.png png 64 36 'bytes after IEND'
ff -f lavfi -i testsrc=size=64x36 -frames:v 1 -q:v 5 "${BITEXACT[@]}" "$OUT/jpeg-64x36.jpg"; img_ok jpeg-64x36.jpg jpeg 64 36 'baseline JPEG (SOF0)'
ff -f lavfi -i color=c=0x336699:s=1280x720 -frames:v 1 -q:v 10 "${BITEXACT[@]}" "$OUT/jpeg-1280x720.jpg"; img_ok jpeg-1280x720.jpg jpeg 1280 720 '720p JPEG'
cp "$OUT/jpeg-64x36.jpg" "$OUT/jpeg-named.png";                                                img_ok jpeg-named.png jpeg 64 36 'a JPEG named .png is JPEG'
# EXIF APP1 and a 20 KB comment before the frame header: segments are skipped by their lengths.
{ bytes 0xff 0xd8 0xff 0xe1; be16 22; printf 'Exif\0\0MM\0*'; be32 8; be16 0; be32 0
  bytes 0xff 0xfe; be16 20002; head -c 20000 /dev/zero | tr '\0' 'c'; tail -c +3 "$OUT/jpeg-64x36.jpg"; } > "$OUT/jpeg-exif-comment.jpg"
img_ok jpeg-exif-comment.jpg jpeg 64 36 'EXIF APP1 and a 20 KB COM segment before SOF0'
# Progressive (SOF2) grayscale 64x36 with fill bytes before SOF2: one DC scan where every block is mid-grey.
# 40 blocks, each coded with the 1-bit Huffman code "0", make 5 zero bytes of scan data.
{ bytes 0xff 0xd8 0xff 0xdb; be16 67; bytes 0; head -c 64 /dev/zero | tr '\0' '\001'
  bytes 0xff 0xff 0xff 0xc2; be16 11; bytes 8; be16 36; be16 64; bytes 1 1 0x11 0
  bytes 0xff 0xc4; be16 20; bytes 0 1; head -c 15 /dev/zero; bytes 0
  bytes 0xff 0xda; be16 8; bytes 1 1 0 0 0 0; head -c 5 /dev/zero; bytes 0xff 0xd9; } > "$OUT/jpeg-progressive.jpg"
[ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$OUT/jpeg-progressive.jpg")" = 64,36 ]
img_ok jpeg-progressive.jpg jpeg 64 36 'progressive JPEG (SOF2), fill bytes before the marker'
head -c 300 "$OUT/png-64x36.png" > "$OUT/bad-png-truncated.png"
fails bad-png-truncated.png unreadable_media truncated 'cut after 300 bytes'
cp "$OUT/png-64x36.png" "$OUT/bad-png-ihdr-crc.png"; bytes 0x7f | patch "$OUT/bad-png-ihdr-crc.png" 18
fails bad-png-ihdr-crc.png unreadable_media checksum 'width changed without fixing the CRC'
head -c 60 "$OUT/jpeg-64x36.jpg" > "$OUT/bad-jpeg-truncated.jpg"
fails bad-jpeg-truncated.jpg unreadable_media 'frame header' 'cut before the frame header'

# --- Video references -----------------------------------------------------------------------------------------
H264=(-c:v libx264 -preset veryfast -crf 40 -pix_fmt yuv420p -bf 0)
AAC=(-c:a aac -b:a 12k -ac 1)
vid_ok() { ok "$1" "\"kind\":\"video\",\"format\":\"$2\",\"durationSeconds\":$3,\"toleranceSeconds\":$4,\"width\":$5,\"height\":$6,\"hasAudio\":$7" "$8"; }
clip() { local size=$1 fps=$2 secs=$3; shift 3; ff -f lavfi -i "testsrc2=size=$size:rate=$fps" -t "$secs" "${H264[@]}" "${BITEXACT[@]}" "$@"; }
with_audio() { local size=$1 fps=$2 secs=$3; shift 3; ff -f lavfi -i "testsrc2=size=$size:rate=$fps" -f lavfi -i sine=frequency=300:sample_rate=8000 -t "$secs" "${H264[@]}" "${AAC[@]}" "${BITEXACT[@]}" "$@"; }
with_audio 64x36 5 10 "$OUT/mp4-10s-moov-end.mp4";                      vid_ok mp4-10s-moov-end.mp4 mp4 10 0.2 64 36 true 'lower bound; moov after mdat (ffmpeg default)'
with_audio 64x36 5 10 -movflags +faststart "$OUT/mp4-10s-faststart.mp4"; vid_ok mp4-10s-faststart.mp4 mp4 10 0.2 64 36 true 'moov before mdat'
clip 64x36 2 9.5 "$OUT/mp4-9.5s.mp4";                                   vid_ok mp4-9.5s.mp4 mp4 9.5 0.5 64 36 false 'below the lower bound (2 fps)'
clip 32x32 1 60 "$OUT/mp4-60s-32x32.mp4";                               vid_ok mp4-60s-32x32.mp4 mp4 60 1 32 32 false 'upper bound at 1 fps'
clip 32x32 2 60.5 "$OUT/mp4-60.5s-32x32.mp4";                           vid_ok mp4-60.5s-32x32.mp4 mp4 60.5 0.5 32 32 false 'above the upper bound (2 fps)'
clip 64x36 5 12 -movflags frag_keyframe+empty_moov -g 10 "$OUT/mp4-fragmented.mp4"
vid_ok mp4-fragmented.mp4 mp4 12 0.2 64 36 false 'fragmented (empty moov, moof per keyframe)'
ff -f lavfi -i color=c=0x336699:s=1280x720:r=1 -t 10 "${H264[@]}" "${BITEXACT[@]}" "$OUT/mp4-1280x720.mp4"
vid_ok mp4-1280x720.mp4 mp4 10 1 1280 720 false '720p at 1 fps'
clip 64x36 5 10 "$WORK/upright.mp4" # the rotation tag is only kept when remuxing
ff -i "$WORK/upright.mp4" -c copy -metadata:s:v:0 rotate=90 "${BITEXACT[@]}" "$OUT/mp4-rotated-90.mp4"
vid_ok mp4-rotated-90.mp4 mp4 10 0.2 36 64 false '64x36 frames with a 90 degree display matrix'
with_audio 64x36 5 10.4 -f mov "$OUT/mov-10.4s.mov";                    vid_ok mov-10.4s.mov mov 10.4 0.2 64 36 true 'QuickTime (brand qt)'
cp "$OUT/mov-10.4s.mov" "$OUT/mov-named.mp4";                           vid_ok mov-named.mp4 mov 10.4 0.2 64 36 true 'a MOV named .mp4 is MOV'
ff -f lavfi -i sine=frequency=300:sample_rate=8000 -t 2 "${AAC[@]}" "${BITEXACT[@]}" -f ipod "$OUT/m4a-audio-only.m4a"
fails m4a-audio-only.m4a unsupported_format 'AAC audio in an MP4 container' 'MP4 (M4A) without a video track'
src="$OUT/mp4-10s-moov-end.mp4"; moov_at=$(grep -obUaP 'moov' "$src" | tail -1 | cut -d: -f1)
head -c $((moov_at - 4)) "$src" > "$OUT/bad-mp4-no-moov.mp4"
fails bad-mp4-no-moov.mp4 unreadable_media moov 'moov-at-end file cut before its moov'
head -c $(( $(size "$OUT/mp4-10s-faststart.mp4") * 2 / 3 )) "$OUT/mp4-10s-faststart.mp4" > "$OUT/bad-mp4-truncated.mp4"
fails bad-mp4-truncated.mp4 unreadable_media truncated 'faststart file cut inside mdat'

# --- Other formats: rejected, named by what they are ---------------------------------------------------------
speech 8000 8000 "$OUT/flac-named.wav" -c:a flac -f flac;        fails flac-named.wav unsupported_format 'FLAC audio' 'FLAC named .wav'
# FFmpeg's own Vorbis encoder (stereo only) gives the same bytes on every run, unlike sox's random Ogg serial.
speech 8000 8000 "$OUT/vorbis.ogg" -ac 2 -c:a vorbis -strict experimental -f ogg
fails vorbis.ogg unsupported_format 'Vorbis audio in an Ogg' 'Ogg Vorbis'
speech 8000 8000 "$OUT/opus-named.mp3" -c:a libopus -b:a 6k -f ogg; fails opus-named.mp3 unsupported_format 'Opus audio' 'Ogg Opus named .mp3'
speech 8000 8000 "$OUT/aac.aac" -c:a aac -b:a 12k -f adts;      fails aac.aac unsupported_format 'AAC audio (ADTS)' 'raw AAC'
speech 8000 8000 "$OUT/aiff.aiff" -f aiff;                       fails aiff.aiff unsupported_format 'AIFF audio' 'AIFF'
speech 16000 16000 "$OUT/mp2-named.mp3" -c:a mp2 -b:a 32k -f mp2; fails mp2-named.mp3 unsupported_format 'Layer II' 'MPEG Layer II named .mp3'
clip 64x36 5 1 -f matroska "$OUT/mkv-named.mp4";                 fails mkv-named.mp4 unsupported_format 'Matroska' 'H.264 in Matroska named .mp4'
ff -f lavfi -i testsrc2=size=64x36:rate=5 -t 1 -c:v libvpx -b:v 20k "${BITEXACT[@]}" "$OUT/webm.webm"
fails webm.webm unsupported_format 'WebM' 'VP8 WebM'
ff -f lavfi -i testsrc2=size=64x36:rate=5 -t 1 -c:v mjpeg -q:v 20 "${BITEXACT[@]}" -f avi "$OUT/avi-named.mov"
fails avi-named.mov unsupported_format 'AVI' 'MJPEG AVI named .mov'
ff -f lavfi -i testsrc=size=32x18 -frames:v 1 "${BITEXACT[@]}" -f gif "$OUT/gif-named.png";  fails gif-named.png unsupported_format 'GIF image' 'GIF named .png'
ff -f lavfi -i testsrc=size=32x18 -frames:v 1 -c:v libwebp "${BITEXACT[@]}" -f webp "$OUT/webp-named.jpg"; fails webp-named.jpg unsupported_format 'WebP image' 'WebP named .jpg'
ff -f lavfi -i testsrc=size=16x16 -frames:v 1 "${BITEXACT[@]}" "$OUT/bmp.bmp";        fails bmp.bmp unsupported_format 'BMP image' 'BMP'
# HEIC/AVIF: no encoder here; the ftyp box is what identifies them.
{ be32 24; printf 'ftypheic'; be32 0; printf 'mif1heic'; be32 8; printf 'free'; } > "$OUT/heic-named.jpg"
fails heic-named.jpg unsupported_format 'HEIC image' 'ftyp heic (header only)'
{ be32 24; printf 'ftypavif'; be32 0; printf 'avifmif1'; be32 8; printf 'free'; } > "$OUT/avif.avif"
fails avif.avif unsupported_format 'AVIF image' 'ftyp avif (header only)'
printf '%%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' > "$OUT/pdf-named.png"
fails pdf-named.png unsupported_format 'PDF document' 'PDF named .png'
printf 'These are speaker notes, not audio.\n' > "$OUT/text-named.mp3"
fails text-named.mp3 unsupported_format 'text file' 'text named .mp3'
ff -f lavfi -i anoisesrc=sample_rate=8000:seed=7:duration=0.25 -f s16le "$OUT/noise-named.wav"
fails noise-named.wav unsupported_format 'unrecognised' 'headerless PCM noise named .wav'
: > "$OUT/empty.mp3"
fails empty.mp3 unreadable_media empty 'zero bytes'

# --- Manifest -------------------------------------------------------------------------------------------------
{ printf '[\n'; for i in "${!MANIFEST[@]}"; do printf '  %s%s\n' "${MANIFEST[$i]}" "$([ "$i" -lt $((${#MANIFEST[@]} - 1)) ] && echo ,)"; done; printf ']\n'; } > "$OUT/manifest.json"
echo "$(ls "$OUT" | wc -l) files, $(du -sh "$OUT" | cut -f1) in $OUT"
