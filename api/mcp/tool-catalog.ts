import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * One MCP tool: which public API route it is, and what an agent is told about it. Its input and
 * output schemas are not written here: they are the route's own zod schemas (bound-tools.ts), so a
 * tool cannot drift from the route it mirrors, whichever server (api or `sps mcp`) runs it.
 */
export interface ToolSpec {
  /** snake_case, as MCP clients show tool names. */
  name: string;
  title: string;
  description: string;
  /** The public route (method and path under /api/public/v1) the tool runs. */
  route: { method: 'get' | 'post' | 'put' | 'delete'; path: string };
  /**
   * MCP structured output is an object: a route answering an array or a union is given under
   * this key (`{channels: [...]}`); unset, the route's object answer is the output as it is.
   */
  wrap?: string;
  /**
   * The call's Idempotency-Key is derived from its arguments (bound-tools.ts): an agent that
   * retries the same call within 24 hours gets the first answer back and nothing is made twice.
   */
  keyedByArguments?: true;
  /**
   * Query values the tool sends unless the agent gives its own: a page size where the route
   * answers a whole range by default, so an agent's context is not filled by one call.
   */
  defaultQuery?: Readonly<Record<string, string>>;
  annotations: ToolAnnotations;
}

const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const dateRule = 'Dates are ISO 8601; one without an offset is UTC.';

/** Posts an agent gets per list_posts call unless it asks for another page size. */
const listPageSize = 100;

/** Every tool the MCP servers offer, in the order an agent usually needs them. */
export const toolCatalog: readonly ToolSpec[] = [
  {
    name: 'list_channels', title: 'List channels',
    description: 'List the connected social channels (integrations) of the organization: id, platform '
      + 'identifier (e.g. mastodon, x, linkedin), name, whether it is disabled, and refreshNeeded (the '
      + 'platform refused its credentials: a person must reconnect it in the dashboard). The channel id is '
      + 'what every other tool takes. Filter by customer with `customer`.',
    route: { method: 'get', path: '/integrations' }, wrap: 'channels',
    annotations: { title: 'List channels', ...reads },
  },
  {
    name: 'get_channel_health', title: 'Channel health',
    description: 'Health of one channel: whether its token works, its granted scopes, the last publication '
      + 'and its outcome, a platform rate limit in force, and a sentence saying what to do. Check it before '
      + 'publishing to a channel whose last post failed.',
    route: { method: 'get', path: '/integrations/:id/health' },
    annotations: { title: 'Channel health', ...reads },
  },
  {
    name: 'get_channel_settings', title: 'Channel posting rules',
    description: 'Posting rules of one channel\'s platform: the text limit (maxLength), the rules in words, '
      + 'the JSON Schema of the post `settings` the platform takes (titles, subreddits, boards...) and its '
      + 'helper tools. Read it before creating a post for a platform you have not posted to.',
    route: { method: 'get', path: '/integration-settings/:id' },
    annotations: { title: 'Channel posting rules', ...reads },
  },
  {
    name: 'find_next_slot', title: 'Find the next free slot',
    description: 'The next free posting time of a channel, from its weekly posting schedule in its time zone '
      + '(searches 90 days ahead). Use the date with create_posts type "schedule".',
    route: { method: 'get', path: '/find-slot/:id' },
    annotations: { title: 'Find the next free slot', ...reads },
  },
  {
    name: 'validate_posts', title: 'Validate posts (dry run)',
    description: 'Dry run of create_posts with the same arguments: every check create_posts makes (channels, '
      + 'text limits, media, platform settings), answered as a list of problems, each naming the channel, the '
      + 'part, the path and the error code create_posts would give. Nothing is stored, queued or published. '
      + 'Has its own hourly budget, so validating never spends what creating needs.',
    route: { method: 'post', path: '/posts/validate' },
    annotations: { title: 'Validate posts', ...reads },
  },
  {
    name: 'create_posts', title: 'Create posts',
    description: 'Create posts on one or more channels: type "now" publishes at once, "schedule" at `date`, '
      + '"queue" in each channel\'s next free slot, "draft" stores without publishing, "update" edits the '
      + 'posts named by value[0].id. In each posts[] entry, value[0] is the post and value[1..] become thread '
      + 'replies or comments where the platform has them. Media go in `image` by the id and path '
      + `upload_from_url answered. ${dateRule} Repeating a call with the same arguments within 24 hours `
      + 'returns the first answer and creates nothing: a retry never publishes twice. Run validate_posts first '
      + 'when unsure. Answers one {postId, integration} per channel; follow a post with get_post.',
    route: { method: 'post', path: '/posts' }, wrap: 'posts', keyedByArguments: true,
    annotations: {
      title: 'Create posts', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true,
    },
  },
  {
    name: 'list_posts', title: 'List posts in a range',
    description: `Root posts whose publish date lies between startDate and endDate (at most 366 days apart), with `
      + `their state (DRAFT, QUEUE, PUBLISHED or ERROR), release URL and error, ${listPageSize} at a time unless `
      + '`limit` (up to 500) says otherwise: while the answer\'s `cursor` is not null, call again with it as '
      + `\`cursor\` (and the same range) for the next page. ${dateRule}`,
    route: { method: 'get', path: '/posts' }, defaultQuery: { limit: String(listPageSize) },
    annotations: { title: 'List posts', ...reads },
  },
  {
    name: 'get_post', title: 'Get a post',
    description: 'One post with each of its thread parts: its state, the platform\'s release id and URL once '
      + 'published, and the error of a failed part. Poll it after create_posts to see the post published.',
    route: { method: 'get', path: '/posts/:id' },
    annotations: { title: 'Get a post', ...reads },
  },
  {
    name: 'delete_post', title: 'Delete a post',
    description: 'Delete a post with its thread parts on that channel and cancel its publication. A post '
      + 'being published at that moment cannot be deleted (conflict). With onPlatform "true", what the '
      + 'platform already published is taken off it too, where its API can: the answer\'s `removal` says per '
      + 'part queued, not_published or unsupported (with the reason); get_post shows the outcome.',
    route: { method: 'delete', path: '/posts/:id' },
    annotations: {
      title: 'Delete a post', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true,
    },
  },
  {
    name: 'retry_post', title: 'Retry a failed post',
    description: 'Publish again only the parts of a failed post the platform has not accepted; the published '
      + 'parts are kept and the thread resumes after the last of them. Conflict when there is nothing to retry '
      + '(all published, still queued or publishing, a draft). Answers the post as get_post does.',
    route: { method: 'post', path: '/posts/:id/retry' },
    annotations: {
      title: 'Retry a failed post', readOnlyHint: false, destructiveHint: false, idempotentHint: false,
      openWorldHint: true,
    },
  },
  {
    name: 'upload_from_url', title: 'Upload media from a URL',
    description: 'Have SPS fetch a public https URL of an image or MP4 video into the organization\'s media '
      + 'library. Answers the media (status ready, with the id and path create_posts takes in `image`) or, '
      + 'when fetching takes longer, {id, status: "pending"}: then ask get_media until it is ready or failed. '
      + 'Repeating the call with the same URL within 24 hours returns the first answer.',
    route: { method: 'post', path: '/upload-from-url' }, wrap: 'media', keyedByArguments: true,
    annotations: {
      title: 'Upload media from a URL', readOnlyHint: false, destructiveHint: false, idempotentHint: true,
      openWorldHint: true,
    },
  },
  {
    name: 'get_media', title: 'Media status',
    description: 'One media of the library with its status: pending, ready (with its public path), or failed '
      + 'with the error and a machine-readable reason.',
    route: { method: 'get', path: '/media/:id' },
    annotations: { title: 'Media status', ...reads },
  },
  {
    name: 'video_options', title: 'Video voices and caption styles',
    description: 'What generate_video\'s customParams take for a video type: functionName `voices` lists the '
      + 'narration voices (customParams.voice), `styles` the caption styles (customParams.style); identifier '
      + 'is the video type (slides, ai-slides).',
    route: { method: 'post', path: '/video/function' },
    annotations: { title: 'Video voices and caption styles', ...reads },
  },
  {
    name: 'generate_video', title: 'Generate a video',
    description: 'Make an MP4 video into the media library: type `slides` turns customParams.text (scenes '
      + 'split at blank lines) and optional library images (customParams.images: media ids) into captioned, '
      + 'narrated scenes; `ai-slides` writes the script from customParams.prompt where an AI provider is '
      + 'configured. Answers the media when it is made within the server\'s wait, else {id, status: "pending"}: '
      + 'follow it with get_media, whose `progress` shows the stage and percent, until ready or failed. The '
      + 'ready media\'s id and path go into create_posts\' `image`. Repeating the same call within 24 hours '
      + 'returns the first answer instead of making another video.',
    route: { method: 'post', path: '/generate-video' }, wrap: 'media', keyedByArguments: true,
    annotations: {
      title: 'Generate a video', readOnlyHint: false, destructiveHint: false, idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: 'list_notifications', title: 'List notifications',
    description: 'The organization\'s notifications (failed publications, channels to reconnect...), newest '
      + 'first, 100 a page; `page` counts from 0 and `hasMore` says whether another page follows.',
    route: { method: 'get', path: '/notifications' },
    annotations: { title: 'List notifications', ...reads },
  },
  {
    name: 'channel_analytics', title: 'Channel analytics',
    description: 'Daily series (followers, impressions, likes... as the platform reports them) of one channel '
      + 'over the last `date` days (default 7), answered from stored readings. A platform without analytics '
      + 'answers an empty list.',
    route: { method: 'get', path: '/analytics/:id' }, wrap: 'analytics',
    annotations: { title: 'Channel analytics', ...reads },
  },
  {
    name: 'post_analytics', title: 'Post analytics',
    description: 'Daily series of one published post over the last `date` days (default 7). A post the '
      + 'platform has no id for yet answers {missing: true}.',
    route: { method: 'get', path: '/analytics/post/:id' }, wrap: 'analytics',
    annotations: { title: 'Post analytics', ...reads },
  },
];
