import type { ErrorDetail } from '../errors.ts';
import type { PlatformDefinition, PostPartFacts } from './kit/platform-definition.ts';
import { countingUnit, measureTextLength } from './kit/text-length.ts';
import { textLimitOf } from './part-lengths.ts';
import { videoProblems } from './kit/video-rules.ts';

export interface PlatformPostCheck {
  /** Settings as the platform schema parsed them (unknown keys dropped); empty when the platform has none. */
  settings: Record<string, unknown>;
  /** Problems relative to the channel post (`settings.title`, `value.1.content`...); empty when it fits. */
  problems: ErrorDetail[];
}

/**
 * Checks one channel's post against its platform: settings schema, text limit per part, whether
 * parts after the first are allowed, and the platform's own media and cross-field rules.
 */
export function validatePlatformPost(
  platform: PlatformDefinition,
  post: { settings: Record<string, unknown>; parts: PostPartFacts[] },
): PlatformPostCheck {
  const problems: ErrorDetail[] = [];
  // `__type` is the server's own marker of the platform, never the caller's to set.
  const { __type: _ignored, ...given } = post.settings;
  let settings: Record<string, unknown> = {};
  if (platform.settings !== null) {
    const parsed = platform.settings.safeParse(given);
    if (parsed.success) settings = parsed.data;
    else
      for (const issue of parsed.error.issues)
        problems.push({ path: ['settings', ...issue.path.map(String)].join('.'), message: issue.message });
  }

  const textLimit = textLimitOf(platform, post.parts);
  post.parts.forEach((part, index) => {
    // Bounded by the limit: a text far over it is refused before it is read to its end.
    const measured = measureTextLength(part.text, platform.textCounting, textLimit);
    if (measured.complete && measured.length <= textLimit) return;
    const found = measured.complete
      ? `has ${measured.length} ${countingUnit[platform.textCounting]}`
      : measured.problem;
    problems.push({ path: `value.${index}.content`, message: `${found}; ${platform.displayName} allows ${textLimit}` });
  });
  if (platform.replies === 'none' && post.parts.length > 1) {
    problems.push({
      path: 'value.1',
      message: `${platform.displayName} has no threads or comments: send one part only`,
    });
  }
  // Only texts within the limit reach the platform's own rules, which may read them again.
  if (problems.length === 0) {
    for (const message of platform.checkPost({ settings, parts: post.parts, textLimit }))
      problems.push({ path: 'value', message });
  }
  post.parts.forEach((part, partIndex) => {
    part.media.forEach((item, mediaIndex) => {
      if (item.kind !== 'video') return;
      for (const message of videoProblems(platform, item))
        problems.push({ path: `value.${partIndex}.image.${mediaIndex}`, message });
    });
  });
  return { settings, problems };
}
