import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

const notificationSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    content: { type: String, required: true },
    link: { type: String, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'notifications' },
);
// Newest first within an organization; _id breaks ties between notifications of the same millisecond.
notificationSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
// Retention removes by age across organizations (shared/domain/retention.ts).
notificationSchema.index({ createdAt: 1 });

export type Notification = InferSchemaType<typeof notificationSchema>;
export type NotificationModel = Model<Notification>;

export function notificationModel(connection: Connection): NotificationModel {
  return (connection.models.Notification as NotificationModel | undefined) ?? connection.model('Notification', notificationSchema);
}
