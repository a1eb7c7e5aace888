import type { PlatformModule } from '../kit/platform-module.ts';
import { hashnodeConnect } from './connect.ts';
import { hashnode } from './definition.ts';

export const hashnodeModule: PlatformModule = {
  definition: hashnode,
  urls: { apiUrl: 'https://gql.hashnode.com' },
  connect: hashnodeConnect,
};
