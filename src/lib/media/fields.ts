/** The create's file fields. A module of its own that imports nothing, so avatar-video/bullmq may bundle it. */
export const FILE_FIELDS = ['audio_reference', 'image_reference', 'video_reference'] as const;
