import type { Database } from '../../db/database.ts';
import type { StoredUser } from './accounts.ts';

/** Operators run the deployment (Bull Board): the stored flag, or an email named in OPERATOR_EMAILS. */
export function isOperator(user: StoredUser, operatorEmails: ReadonlySet<string>): boolean {
  return user.operator || operatorEmails.has(user.email.toLowerCase());
}

/** Grants or withdraws the operator role of the account with this email; false when there is none. */
export async function setOperator(db: Database, email: string, operator: boolean): Promise<boolean> {
  const result = await db.users.updateOne({ email: email.trim().toLowerCase() }, { $set: { operator } });
  return result.matchedCount === 1;
}
