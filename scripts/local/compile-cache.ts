import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The environment for a Node process SPS starts (the api, the workers, the auth server, a test's
 * service), with Node's compile cache on: V8's code for the project's modules is kept between
 * starts in the folder Node itself uses by default (`node-compile-cache` under the temporary
 * directory, as the `sps` bin does), so a restart imports in about 1.5 s instead of 2 s on two
 * cores. An environment that sets NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE keeps its choice.
 */
export function withCompileCache(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return env;
  return { ...env, NODE_COMPILE_CACHE: path.join(tmpdir(), 'node-compile-cache') };
}
