import { pino, type Logger } from 'pino';

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

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
