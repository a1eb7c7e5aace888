import { describe, expect, it } from 'vitest';
import { allPlatforms } from './platforms.ts';
import { validatePlatformPost } from './validate-post.ts';

/** zod's own words for a key left out, which say nothing of what the post needs. */
const zodDefault = /^Invalid (input|option)/;

describe('required post settings left out', () => {
  const withSettings = allPlatforms().filter((platform) => platform.settings !== null);

  it.each(withSettings.map((platform) => [platform.identifier, platform] as const))(
    '%s says what the post needs, in its own words',
    (_identifier, platform) => {
      const { problems } = validatePlatformPost(platform, { settings: {}, parts: [{ text: 'Hello', media: [] }] });
      const missing = problems.filter((problem) => problem.path.startsWith('settings.'));
      for (const problem of missing) expect(problem.message, problem.path).not.toMatch(zodDefault);
    },
  );

  it('names the WordPress title and post type', () => {
    const wordpress = withSettings.find((platform) => platform.identifier === 'wordpress');
    if (wordpress === undefined) throw new Error('WordPress is in the registry');
    const { problems } = validatePlatformPost(wordpress, { settings: {}, parts: [{ text: 'Hello', media: [] }] });
    expect(problems).toEqual([
      { path: 'settings.title', message: 'a WordPress post needs a title' },
      {
        path: 'settings.post_type',
        message: 'a WordPress post needs a post_type, such as "posts" or "pages" (see the postTypes tool)',
      },
    ]);
  });
});
