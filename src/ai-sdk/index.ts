/**
 * `avatar-video/ai-sdk`: avatar videos from the Vercel AI SDK's `experimental_generateVideo`. The driving audio and
 * the visual reference go in as files (`inputReferences`, `prompt.image`), sorted by their bytes.
 *
 *   import { experimental_generateVideo as generateVideo } from 'ai';
 *   import { avatarVideo } from 'avatar-video/ai-sdk';
 *   const { video } = await generateVideo({ model: avatarVideo('service-avatar-x'), prompt: { image }, inputReferences: [audio] });
 *
 * It loads nothing of `ai` or `@ai-sdk/*` at run time: their types only.
 */
export { AvatarVideoModel, type AvatarVideoModelId, type AvatarVideoOperation } from './model.js';
export { type AvatarVideoProvider, type AvatarVideoProviderSettings, avatarVideo, createAvatarVideo } from './provider.js';
export type { AvatarVideoCallOptions } from './settings.js';
