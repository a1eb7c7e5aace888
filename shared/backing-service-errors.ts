import {
  MongoBulkWriteError, MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/** The stores SPS cannot work without; when one is away the failure is theirs, not the request's. */
export type BackingService = 'database' | 'queue';

/** Server answers that only mean "this server is stopping or changing role": the same command succeeds later. */
const transientServerCodes = new Set([
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** What ioredis and BullMQ reject a command with while Redis cannot be reached or is still loading its data. */
const redisUnavailableMessages = [
  /^Connection is closed\.?$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
  /^LOADING /,
  /^Reached the max retries per request limit/,
  // A Redis Cluster while a primary fails over, or while no node answers: ioredis retries the
  // command for a while (maxRedirections), then gives up with the last error inside this one.
  /^Too many Cluster redirections\. Last error: /,
  /^CLUSTERDOWN /,
  /^TRYAGAIN /,
  /^Cluster isn't ready and enableOfflineQueue options is false$/,
  /^Failed to refresh slots cache/,
];

/**
 * insertMany wraps a connection that failed in MongoBulkWriteError; a real write error (a
 * duplicate key, a rejected document) carries write errors or a server code instead.
 */
function isBulkWriteCutShort(error: Error): error is MongoBulkWriteError {
  return error instanceof MongoBulkWriteError && [error.writeErrors].flat().length === 0 && error.code === undefined
    && /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|closed|timed out|Server selection/i.test(error.message);
}

function ownService(error: Error): BackingService | null {
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError
    || error instanceof MongoNotConnectedError || error instanceof MongoTopologyClosedError) return 'database';
  if (isBulkWriteCutShort(error)) return 'database';
  if (error instanceof MongoServerError && typeof error.code === 'number' && transientServerCodes.has(error.code)) {
    return 'database';
  }
  // mongoose wraps server selection in its own class and times out commands it buffered while disconnected.
  if (error.name === 'MongooseServerSelectionError' || /buffering timed out after \d+ms/.test(error.message)) {
    return 'database';
  }
  const redisAway = redisUnavailableMessages.some((pattern) => pattern.test(error.message));
  if (error.name === 'MaxRetriesPerRequestError' || redisAway) return 'queue';
  return null;
}

/**
 * Which backing service an error says is unreachable, or null when the error is anything else
 * (a bug, bad data, a platform's answer). Looks through `cause` because wrappers keep the
 * driver's error there.
 */
export function unavailableBackingService(error: unknown): BackingService | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const service = ownService(current);
    if (service !== null) return service;
    current = current.cause;
  }
  return null;
}

/**
 * True when the database went away during a write that had already been sent: the server may
 * have applied it, so the caller cannot be told that nothing was saved.
 */
export function writeMayHaveApplied(error: unknown): boolean {
  return error instanceof Error && isBulkWriteCutShort(error)
    && /ECONNRESET|EPIPE|closed|timed out/i.test(error.message);
}
