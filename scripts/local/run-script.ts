import { ConfigError, loadConfig, type Config } from '../../shared/config/config.ts';
import { DomainError } from '../../shared/errors.ts';
import { prepareLocalEnvironment } from './local-environment.ts';

export const logToStderr = (line: string): void => { process.stderr.write(`${line}\n`); };

/**
 * Runs an operator script: prepares the embedded defaults (local services), reads the config,
 * and turns any failure into one readable line on stderr and exit code 1. stdout is left for
 * the script's JSON result.
 */
export async function runScript(main: (config: Config) => Promise<unknown>): Promise<void> {
  try {
    const env = await prepareLocalEnvironment(process.env, logToStderr);
    const result = await main(loadConfig(env));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  } catch (error) {
    const message = error instanceof DomainError || error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  }
}
