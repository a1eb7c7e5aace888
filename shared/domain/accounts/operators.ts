import type { Database } from '../../db/database.ts';
import type { StoredUser } from './accounts.ts';

/**
 * Operators run the deployment (Bull Board: every tenant's jobs, with retry and clean). Only the
 * stored flag makes one, set by `npm run operator:grant` by someone with access to the database:
 * sign-up never proves that an address belongs to whoever typed it, so no email grants the role.
 */
export function isOperator(user: StoredUser): boolean {
  return user.operator;
}

/** Grants or withdraws the operator role of the account with this email; false when there is none. */
export async function setOperator(db: Database, email: string, operator: boolean): Promise<boolean> {
  const result = await db.users.updateOne({ email: email.trim().toLowerCase() }, { $set: { operator } });
  return result.matchedCount === 1;
}
