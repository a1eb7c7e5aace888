export const platformGroups = ['social', 'video', 'community', 'design', 'blogging', 'business'] as const;
export type PlatformGroup = (typeof platformGroups)[number];

/** Static facts about a platform: data plus validation, no network code. */
export interface PlatformDefinition {
  identifier: string;
  displayName: string;
  group: PlatformGroup;
  /** Characters allowed in one post part. */
  textLimit: number;
  /** How parts after the first are published. */
  replies: 'thread' | 'comment' | 'none';
}
