/** A call the api hands to the workers (the platform queue): one of a channel's tools, or its recent content. */
export type PlatformCallRequest =
  | { kind: 'tool'; organizationId: string; channelId: string; methodName: string; data: Record<string, unknown> }
  | { kind: 'recent-content'; organizationId: string; channelId: string };
