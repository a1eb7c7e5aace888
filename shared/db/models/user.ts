import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** A person who logs in to the dashboard; may belong to several organizations. */
const userSchema = new Schema(
  {
    email: { type: String, required: true, unique: true, lowercase: true, trim: true },
    /** scrypt, see shared/crypto/password.ts. */
    passwordHash: { type: String, required: true },
    organizationIds: { type: [Schema.Types.ObjectId], default: [] },
    /** Runs the deployment: may open Bull Board (/admin/queues) and act on every organization's jobs. */
    operator: { type: Boolean, default: false },
  },
  { timestamps: true, collection: 'users' },
);

export type User = InferSchemaType<typeof userSchema>;
export type UserModel = Model<User>;

export function userModel(connection: Connection): UserModel {
  return (connection.models.User as UserModel | undefined) ?? connection.model('User', userSchema);
}
