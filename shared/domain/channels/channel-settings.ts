import { z } from 'zod';
import type { PlatformDefinition, ToolDefinition } from '../../platforms/kit/platform-definition.ts';
import type { PlatformRemoval } from '../../platforms/kit/platform-removal.ts';
import { findPlatformModule } from '../../platforms/platforms.ts';
import { undeclaredRemoval } from '../removal/removal-plan.ts';

export interface ChannelSettingsView {
  rules: string;
  maxLength: number;
  /** JSON Schema of the platform's post settings, or the contract's fixed sentence when there are none. */
  settings: Record<string, unknown> | 'No additional settings required';
  tools: ToolDefinition[];
  /** What deleting a post with onPlatform=true does there, as the platform's room declares it. */
  removal: PlatformRemoval;
}

/** What `GET /integration-settings/:id` tells a client about posting to this channel's platform. */
export function channelSettingsView(platform: PlatformDefinition): ChannelSettingsView {
  return {
    rules: `${platform.rules} ${platform.mediaRules}`,
    maxLength: platform.textLimit,
    settings: platform.settings === null ? 'No additional settings required' : z.toJSONSchema(platform.settings, { io: 'input', unrepresentable: 'any' }),
    tools: platform.tools,
    removal: findPlatformModule(platform.identifier)?.removal ?? undeclaredRemoval,
  };
}
