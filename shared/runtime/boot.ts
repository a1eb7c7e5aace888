import { ConfigError, loadConfig, type Config } from '../config/config.ts';

/** Reads the configuration or stops the process with every problem listed, naming each variable. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nEvery setting is described in docs/configuration.md.\n`);
      process.exit(1);
    }
    throw error;
  }
}
