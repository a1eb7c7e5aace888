import type { Database } from '../../db/database.ts';
import type { AdapterSet } from '../../platforms/platforms.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import type { PlatformCallRequest } from './platform-call-request.ts';
import type { ChannelTokens } from './channel-tokens.ts';

export interface PlatformCallDeps {
  db: Database;
  adapters: AdapterSet;
  tokens: ChannelTokens;
}

/** Worker side of a platform call: load the channel, open its token, run the adapter's tool. */
export async function runPlatformCall(deps: PlatformCallDeps, request: PlatformCallRequest): Promise<unknown> {
  const channel = await deps.db.channels.findOne({ _id: request.channelId, organizationId: request.organizationId, deletedAt: null }).lean();
  if (channel === null) throw new PlatformError({ kind: 'permanent', provider: 'unknown', message: 'the channel was removed' });
  const adapter = deps.adapters.get(channel.provider);
  if (adapter === undefined) throw new PlatformError({ kind: 'permanent', provider: channel.provider, message: `${channel.provider} has no adapter yet` });
  if (request.kind === 'recent-content') {
    return deps.tokens.run(channel, (credentials) => adapter.recentContent(credentials));
  }
  const tool = adapter.tools[request.methodName];
  if (tool === undefined) throw new PlatformError({ kind: 'permanent', provider: channel.provider, message: `${channel.provider} has no tool "${request.methodName}"` });
  return deps.tokens.run(channel, (credentials) => tool(credentials, request.data));
}
