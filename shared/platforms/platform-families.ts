/**
 * Platforms that reach one company's API share its code through a family room, a folder beside
 * theirs that is no platform (no module.ts, not in platforms.ts): Facebook, Instagram and Threads
 * the Meta Graph API and Facebook Login, YouTube and Business Profile Google's OAuth, LinkedIn
 * members and Pages LinkedIn's REST API. Keyed by the family room's folder, the platform rooms by
 * theirs. room-imports.ts holds every room to the kit, its family room and itself.
 */
export const platformFamilies: Readonly<Record<string, readonly string[]>> = {
  meta: ['facebook', 'instagram', 'instagram-standalone', 'threads'],
  google: ['youtube', 'gmb'],
  'linkedin-family': ['linkedin', 'linkedin-page'],
};

/** The shared platform code every room may import. */
export const kitRoom = 'kit';
