import { InvalidArgumentError } from 'avatar-video';
import * as z from 'zod';

/**
 * `providerOptions.avatarVideo` of a call: JSON settings only, as the AI SDK passes provider options through as JSON.
 * An unknown key is refused before anything is uploaded: a misspelt `waitTimeout` silently ignored would wait ten minutes.
 */
export interface AvatarVideoCallOptions {
  /** The model of this call's job, over the model id the provider was asked for. @default the model id */
  model?: string | undefined;
  /** Check the inputs locally (formats from their bytes, durations measured) before any upload. @default true */
  validate?: boolean | undefined;
  /** Deadline of the wait for the job, in ms, as `waitForCompletion`'s `waitTimeout`. @default 600000 (10 minutes) */
  waitTimeout?: number | undefined;
}

const schema = z.strictObject({
  model: z.string().min(1).optional(),
  validate: z.boolean().optional(),
  waitTimeout: z.number().int().positive().optional(),
});

/** The call's `providerOptions.avatarVideo`, checked; `{}` when there is none. */
export function callSettings(providerOptions: Record<string, unknown> | undefined): AvatarVideoCallOptions {
  const parsed = schema.safeParse(providerOptions?.avatarVideo ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${[...issue.path, ...('keys' in issue ? issue.keys : [])].join('.') || 'avatarVideo'}: ${issue.message}`,
  );
  throw new InvalidArgumentError(
    'providerOptions.avatarVideo',
    `providerOptions.avatarVideo takes only { model, validate, waitTimeout }: ${problems.join('; ')}.`,
  );
}
