import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Customer } from '../../db/models/customer.ts';
import { DomainError } from '../../errors.ts';

export async function listCustomers(db: Database, organizationId: string): Promise<{ id: string; name: string }[]> {
  const customers = await db.customers.find({ organizationId }).sort({ name: 1, _id: 1 }).lean();
  return customers.map((customer) => ({ id: customer._id.toString(), name: customer.name }));
}

/** The unique index on (organization, name) makes two concurrent calls agree on one customer. */
export async function findOrCreateCustomer(db: Database, organizationId: string, name: string): Promise<Customer & { _id: Types.ObjectId }> {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) throw new DomainError('validation_failed', 'a customer name must have 1 to 200 characters');
  const filter = { organizationId: new Types.ObjectId(organizationId), name: trimmed };
  const existing = await db.customers.findOne(filter).lean();
  if (existing !== null) return existing;
  try {
    return (await db.customers.create(filter)).toObject();
  } catch (error) {
    const again = await db.customers.findOne(filter).lean();
    if (again !== null) return again;
    throw error;
  }
}
