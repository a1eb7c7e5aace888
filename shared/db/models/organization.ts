import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';

const organizationSchema = new Schema(
  {
    name: { type: String, required: true, trim: true },
    /** HMAC of the API key: the only form the key is looked up by. */
    apiKeyDigest: { type: String, required: true, unique: true },
    /** AES-GCM copy so the dashboard can show the key again; never logged, never returned by lookups. */
    apiKeySealed: { type: String, required: true },
    /** Payment-processor customer id; null until billing is set up. */
    billingCustomerId: { type: String, default: null },
  },
  { timestamps: true, collection: 'organizations' },
);

export type Organization = InferSchemaType<typeof organizationSchema>;
export type OrganizationModel = Model<Organization>;

export function organizationModel(connection: Connection): OrganizationModel {
  return (connection.models.Organization as OrganizationModel | undefined) ?? connection.model('Organization', organizationSchema);
}
