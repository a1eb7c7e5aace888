import type { PlatformModule } from '../kit/platform-module.ts';
import { createHashnodeAdapter } from './adapter.ts';
import { hashnodeConnect } from './connect.ts';
import { hashnode } from './definition.ts';

export const hashnodeModule: PlatformModule = {
  definition: hashnode,
  // The endpoint Hashnode's own gql-skill calls production: its PublishPostInput (tags by slug, a
  // coverImage address) is the schema the settings follow. gql.hashnode.com, whose older schema
  // the starter kit carries, has redirected to Hashnode's paid-API announcement since 2026-05-13.
  urls: { apiUrl: 'https://gql-beta.hashnode.com' },
  connect: hashnodeConnect,
  createAdapter: createHashnodeAdapter,
  // The removePost mutation: the post, deleted from its publication.
  removal: { supported: true, method: 'delete' },
};
