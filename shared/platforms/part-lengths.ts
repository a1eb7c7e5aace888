import type { PlatformDefinition, PostPartFacts } from './kit/platform-definition.ts';
import { countingUnit, measureTextLength } from './kit/text-length.ts';

/**
 * The text limit of one post's parts on a platform: the limit its media call for where the
 * platform has one (TikTok), else its own. validatePlatformPost and the composer's counter both
 * ask here, so the dashboard never shows a limit POST /posts does not apply.
 */
export function textLimitOf(platform: PlatformDefinition, parts: PostPartFacts[]): number {
  return platform.textLimitFor?.(parts) ?? platform.textLimit;
}

/** One part's text as its platform counts it, for the composer's remaining-characters line. */
export interface PartLength {
  /** The count, or null when the text was refused before it was counted to its end. */
  length: number | null;
  limit: number;
  /** What is counted (characters, bytes...), in the words validation messages use. */
  unit: string;
}

/** Each part measured with the code validatePlatformPost measures with, bounded by the limit. */
export function partLengths(platform: PlatformDefinition, parts: PostPartFacts[]): PartLength[] {
  const limit = textLimitOf(platform, parts);
  return parts.map((part) => {
    const measured = measureTextLength(part.text, platform.textCounting, limit);
    return { length: measured.complete ? measured.length : null, limit, unit: countingUnit[platform.textCounting] };
  });
}
