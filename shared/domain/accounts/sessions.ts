import { Types } from 'mongoose';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Session } from '../../db/models/session.ts';
import type { StoredUser } from './accounts.ts';

export const sessionLifetimeMs = 14 * 24 * 3600 * 1000;

export interface ActiveSession {
  session: Session & { _id: Types.ObjectId };
  user: StoredUser;
}

/** Starts a session and returns the cookie value (shown once; stored as a digest). */
export async function startSession(db: Database, secrets: SecretBox, user: StoredUser, organizationId: string, now: Date): Promise<string> {
  const token = randomCredential();
  await db.sessions.create({ tokenDigest: secrets.digest(token), userId: user._id, organizationId: new Types.ObjectId(organizationId), expiresAt: new Date(now.getTime() + sessionLifetimeMs) });
  return token;
}

export async function findSession(db: Database, secrets: SecretBox, token: string, now: Date): Promise<ActiveSession | null> {
  const session = await db.sessions.findOne({ tokenDigest: secrets.digest(token), expiresAt: { $gt: now } }).lean();
  if (session === null) return null;
  const user = await db.users.findById(session.userId).lean();
  return user === null ? null : { session, user };
}

export async function endSession(db: Database, secrets: SecretBox, token: string): Promise<void> {
  await db.sessions.deleteOne({ tokenDigest: secrets.digest(token) });
}

export async function selectOrganization(db: Database, sessionId: Types.ObjectId, organizationId: string): Promise<void> {
  await db.sessions.updateOne({ _id: sessionId }, { $set: { organizationId: new Types.ObjectId(organizationId) } });
}

/** Maintenance: expiry is enforced in findSession; this only keeps the collection small. */
export async function deleteExpiredSessions(db: Database, now: Date): Promise<number> {
  const result = await db.sessions.deleteMany({ expiresAt: { $lte: now } });
  return result.deletedCount;
}
