import type { z } from 'zod';
import { PlatformError } from './platform-error.ts';

/** How a room writes and reads back a credential stored as a JSON document (sealed like any token). */
export interface StoredCredential<T> {
  encode: (value: T) => string;
  /**
   * Reads back what `encode` wrote. Anything else (a token saved before the room stored a
   * document, a corrupted value) is `disconnected`: the user must connect the channel again.
   */
  read: (stored: string) => T;
  /** Like `read`, but null instead of throwing, for callers with a fallback. */
  readOrNull: (stored: string) => T | null;
}

/**
 * One platform's stored credential where a bare token is not enough: a bot token and its chat,
 * a user's token and the board or page it publishes to, a login and its application password.
 */
export function storedCredential<Schema extends z.ZodType>(
  schema: Schema,
  where: { provider: string; what: string; reconnect: string },
): StoredCredential<z.output<Schema>> {
  const readOrNull = (stored: string): z.output<Schema> | null => {
    let value: unknown;
    try {
      value = JSON.parse(stored) as unknown;
    } catch {
      // Not JSON: not a document this room wrote. The caller decides what that means.
      return null;
    }
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : null;
  };
  return {
    encode: (value) => JSON.stringify(schema.parse(value)),
    read: (stored) => {
      const value = readOrNull(stored);
      if (value !== null) return value;
      const message = `the stored ${where.what} is unreadable; ${where.reconnect}`;
      throw new PlatformError({ kind: 'disconnected', provider: where.provider, message });
    },
    readOrNull,
  };
}
