import { checkMedia, issuesOf, type MediaArgs, mediaOf } from '../inputs.js';
import { success } from '../results.js';
import * as schema from '../schemas.js';
import { tool } from '../tool.js';

/** validate_inputs: the local checks generate_video runs, free (no key, no network, nothing created). */
export const validateInputs = tool({
  name: 'validate_inputs',
  title: 'Check inputs locally',
  description:
    'Check an audio file and a portrait (or video) locally, as generate_video would: formats, durations, sizes, generation mode. ' +
    'Free: no key, no network, nothing created. Paths are local files inside the allowed roots.',
  inputSchema: schema.validateInput,
  outputSchema: schema.validateOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args: MediaArgs, call) {
    try {
      const { checked } = await checkMedia(args, await call.roots(), false);
      const mode = checked.generationMode;
      return success(`Valid: ${checked.audio.format} audio and ${checked.visual.kind} ${checked.visual.format} (${mode}).`, {
        valid: true,
        audio: mediaOf(checked.audio),
        visual: mediaOf(checked.visual),
        generation_mode: mode,
        warnings: checked.warnings,
        issues: [],
      });
    } catch (error) {
      const issues = issuesOf(error);
      if (!issues) throw error;
      return success(`Not valid: ${issues.map((issue) => issue.message).join('; ')}`, { valid: false, warnings: [], issues });
    }
  },
});
