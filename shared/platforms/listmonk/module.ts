import type { PlatformModule } from '../kit/platform-module.ts';
import { createListmonkAdapter } from './adapter.ts';
import { listmonkConnect } from './connect.ts';
import { listmonk } from './definition.ts';

export const listmonkModule: PlatformModule = {
  definition: listmonk,
  connect: listmonkConnect,
  createAdapter: createListmonkAdapter,
};
