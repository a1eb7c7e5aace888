import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** A client of the organization whose channels are grouped together ("groups" in the API). */
const customerSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    name: { type: String, required: true, trim: true },
  },
  { timestamps: true, collection: 'customers' },
);
customerSchema.index({ organizationId: 1, name: 1 }, { unique: true });

export type Customer = InferSchemaType<typeof customerSchema>;
export type CustomerModel = Model<Customer>;

export function customerModel(connection: Connection): CustomerModel {
  return (connection.models.Customer as CustomerModel | undefined) ?? connection.model('Customer', customerSchema);
}
