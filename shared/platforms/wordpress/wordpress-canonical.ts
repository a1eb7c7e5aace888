import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type WordpressRest, type WordpressSession } from './wordpress-rest.ts';

/**
 * WordPress core has no canonical link of its own; SEO plugins keep one in post meta, and a
 * site that exposes that field to the REST API (register_post_meta with show_in_rest) lists
 * it under `meta` in the post type's schema. These are the plugins' keys, in the order tried.
 */
export const canonicalMetaKeys = [
  '_yoast_wpseo_canonical', // Yoast SEO
  'rank_math_canonical_url', // Rank Math
  '_seopress_robots_canonical', // SEOPress
  '_genesis_canonical_uri', // The SEO Framework
] as const;

/** The route's description (OPTIONS, asked as GET with `_method`, which WordPress honours). */
const routeDescription = z.object({
  schema: z.object({
    properties: z.object({
      // PHP encodes an empty map as [].
      meta: z.object({ properties: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]) }).optional(),
    }),
  }),
});

/** The meta key the site's canonical field is written to; refused before anything is created when none exists. */
export async function canonicalMetaKey(
  rest: WordpressRest,
  session: WordpressSession,
  restBase: string,
): Promise<string> {
  const answer = routeDescription.safeParse(await rest.call(session, {
    method: 'GET',
    route: `/wp/v2/${restBase}`,
    query: { _method: 'OPTIONS' },
  }));
  const fields = answer.success ? answer.data.schema.properties.meta?.properties ?? [] : [];
  const exposed = Array.isArray(fields) ? [] : Object.keys(fields);
  const key = canonicalMetaKeys.find((candidate) => exposed.includes(candidate));
  if (key !== undefined) return key;
  const message = `the WordPress site exposes no canonical link field for ${restBase} in its REST API `
    + `(WordPress has none of its own; an SEO plugin's field must be shown in the REST API: one of `
    + `${canonicalMetaKeys.join(', ')}); remove canonical_url or expose the field`;
  throw new PlatformError({ kind: 'permanent', provider, message });
}
