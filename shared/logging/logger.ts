import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials. Redacting by path keeps secrets out of logs even when a
 * whole request or job is logged by mistake.
 */
const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.apiKey',
  '*.token',
  '*.accessToken',
  '*.clientSecret',
  '*.password',
];

/** `destination` defaults to stdout; tests pass one to read what was logged. */
export function createLogger(options: { level: string; name: string; destination?: DestinationStream }): Logger {
  const settings = {
    name: options.name,
    level: options.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination === undefined ? pino(settings) : pino(settings, options.destination);
}
