/**
 * The type contract of `avatar-video/ai-sdk` with the AI SDK's interface: its model is an `Experimental_VideoModelV4`
 * and its provider takes the spec's model ids and any other (compiled by `npm run typecheck`). Nothing here runs.
 */
import type { Experimental_VideoModelV4, JSONValue } from '@ai-sdk/provider';
import { experimental_generateVideo } from 'ai';
import { AvatarVideo } from 'avatar-video';
import { type AvatarVideoCallOptions, type AvatarVideoProvider, avatarVideo, createAvatarVideo } from 'avatar-video/ai-sdk';

export const model: Experimental_VideoModelV4 = avatarVideo('service-avatar-x');
export const other: Experimental_VideoModelV4 = createAvatarVideo({ apiKey: 'k', baseURL: 'https://api.example.com' }).video('any-model');
export const own: AvatarVideoProvider = createAvatarVideo({ client: new AvatarVideo({ apiKey: 'k', baseURL: 'https://api.example.com' }) });
export const byName: Experimental_VideoModelV4 = own.videoModel('service-video-1-latest');
export const settings: AvatarVideoCallOptions = { model: 'service-avatar-x', validate: false, waitTimeout: 60_000 };
// The call options are JSON, as the AI SDK's providerOptions are.
export const json: Record<string, JSONValue> = { ...settings };
export const call = () =>
  experimental_generateVideo({
    model,
    prompt: { image: new Uint8Array(8) },
    inputReferences: [new Uint8Array(8)],
    providerOptions: { avatarVideo: json },
  });
