import { z } from 'zod';
import { videoFunctionNames, videoTypeIds } from '../../../shared/video/video-catalog.ts';

export const generateVideoBody = z.object({
  type: z.string().min(1).max(100).describe(`the kind of video: ${videoTypeIds.join(', ')}`),
  output: z.enum(['vertical', 'horizontal']).describe('vertical: 1080x1920; horizontal: 1920x1080'),
  customParams: z.record(z.string(), z.unknown()).optional().describe(
    'slides: {text, images?: [media ids], voice?, style?}; ai-slides: {prompt, voice?, style?}',
  ),
});

export const videoFunctionBody = z.object({
  functionName: z.string().min(1).max(100).describe(`the helper data wanted: ${videoFunctionNames.join(', ')}`),
  identifier: z.string().min(1).max(100).describe('the video type it is for'),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const videoFunctionAnswer = z.object({
  output: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })),
});
