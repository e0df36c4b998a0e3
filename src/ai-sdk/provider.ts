import { AvatarVideo, type ClientOptions } from 'avatar-video';
import { AvatarVideoModel, type AvatarVideoModelId } from './model.js';

/** The client a provider makes its jobs with: one of your own, or the options to build one. */
export type AvatarVideoProviderSettings = ClientOptions | { client: AvatarVideo };

/** A provider of avatar video models: call it, or its `video`/`videoModel`, with a model id. */
export interface AvatarVideoProvider {
  (modelId: AvatarVideoModelId): AvatarVideoModel;
  video(modelId: AvatarVideoModelId): AvatarVideoModel;
  videoModel(modelId: AvatarVideoModelId): AvatarVideoModel;
}

/**
 * A provider for the AI SDK's `experimental_generateVideo`, `experimental_startVideo` and
 * `experimental_getVideoStatus`. With client options (or none), the client is built when a model is first used, so
 * the environment (`AVATAR_VIDEO_API_KEY`, `AVATAR_VIDEO_BASE_URL`) is read then, not at import.
 */
export function createAvatarVideo(settings: AvatarVideoProviderSettings = {}): AvatarVideoProvider {
  let client: AvatarVideo | undefined = 'client' in settings ? settings.client : undefined;
  const clientOf = () => {
    client ??= new AvatarVideo(settings as ClientOptions);
    return client;
  };
  const model = (modelId: AvatarVideoModelId) => new AvatarVideoModel(modelId, clientOf);
  return Object.assign(model, { video: model, videoModel: model });
}

/** The default provider: a client from the environment, built when it is first used. */
export const avatarVideo: AvatarVideoProvider = createAvatarVideo();
