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

export interface LoggerOptions {
  level: string;
  name: string;
  /** Tests pass one to read what was logged; stdout otherwise. */
  destination?: DestinationStream;
  /**
   * Stdout written asynchronously: lines logged while a write is under way go out together in
   * the next one, instead of one blocking write each. The workers log two lines a job, and one
   * write per line cost them 7 % of their CPU (a profile of 2,000 publishes). pino flushes what
   * is left when the process exits, crashes included; only a kill -9 can lose the last lines.
   * The api keeps one write per line: no gain was measured there, and its peak RSS during a 1 GiB
   * upload sits at the 200 MB target (189-209 MB in seven runs, either way), so it stays as it was.
   */
  asynchronous?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    name: options.name,
    level: options.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return pino(settings, options.destination ?? pino.destination({ dest: 1, sync: options.asynchronous !== true }));
}
