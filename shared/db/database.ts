import mongoose, { type Connection } from 'mongoose';
import { analyticsDayModel, type AnalyticsDayModel } from './models/analytics-day.ts';
import { apiKeyModel, type ApiKeyModel } from './models/api-key.ts';
import { channelModel, type ChannelModel } from './models/channel.ts';
import { connectAttemptModel, type ConnectAttemptModel } from './models/connect-attempt.ts';
import { customerModel, type CustomerModel } from './models/customer.ts';
import { eventModel, type EventModel } from './models/event.ts';
import { mediaModel, type MediaModel } from './models/media.ts';
import { notificationModel, type NotificationModel } from './models/notification.ts';
import { organizationModel, type OrganizationModel } from './models/organization.ts';
import { oauthAppModel, type OAuthAppModel } from './models/oauth-app.ts';
import { oauthCodeModel, type OAuthCodeModel } from './models/oauth-code.ts';
import { oauthGrantModel, type OAuthGrantModel } from './models/oauth-grant.ts';
import { postModel, type PostModel } from './models/post.ts';
import { serverClientModel, type ServerClientModel } from './models/server-client.ts';
import { sessionModel, type SessionModel } from './models/session.ts';
import { shortLinkModel, type ShortLinkModel } from './models/short-link.ts';
import { userModel, type UserModel } from './models/user.ts';
import { webhookDeliveryModel, type WebhookDeliveryModel } from './models/webhook-delivery.ts';
import { webhookEndpointModel, type WebhookEndpointModel } from './models/webhook-endpoint.ts';

/** The models bound to one connection, so each test file can own a database of its own. */
export interface Database {
  connection: Connection;
  organizations: OrganizationModel;
  channels: ChannelModel;
  customers: CustomerModel;
  posts: PostModel;
  media: MediaModel;
  notifications: NotificationModel;
  users: UserModel;
  sessions: SessionModel;
  oauthApps: OAuthAppModel;
  oauthCodes: OAuthCodeModel;
  oauthGrants: OAuthGrantModel;
  connectAttempts: ConnectAttemptModel;
  serverClients: ServerClientModel;
  analyticsDays: AnalyticsDayModel;
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
  apiKeys: ApiKeyModel;
  /** What GET /events reads: every event emitted, one row each. */
  events: EventModel;
  /** Links of posts created with shortLink: true, and their click counts (shared/domain/short-links/). */
  shortLinks: ShortLinkModel;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  dbName?: string;
  /** The driver's command events, for tests that count what a step sends to the database. */
  monitorCommands?: boolean;
}

export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<Database> {
  const connection = mongoose.createConnection(url, {
    ...(options.dbName === undefined ? {} : { dbName: options.dbName }),
    ...(options.monitorCommands === true ? { monitorCommands: true } : {}),
    serverSelectionTimeoutMS: 10_000,
    // Indexes are created explicitly below, once, and awaited: no race with the first query.
    autoIndex: false,
    autoCreate: false,
  });
  await connection.asPromise();
  const database: Database = {
    connection,
    organizations: organizationModel(connection),
    channels: channelModel(connection),
    customers: customerModel(connection),
    posts: postModel(connection),
    media: mediaModel(connection),
    notifications: notificationModel(connection),
    users: userModel(connection),
    sessions: sessionModel(connection),
    oauthApps: oauthAppModel(connection),
    oauthCodes: oauthCodeModel(connection),
    oauthGrants: oauthGrantModel(connection),
    connectAttempts: connectAttemptModel(connection),
    serverClients: serverClientModel(connection),
    analyticsDays: analyticsDayModel(connection),
    webhookEndpoints: webhookEndpointModel(connection),
    webhookDeliveries: webhookDeliveryModel(connection),
    apiKeys: apiKeyModel(connection),
    events: eventModel(connection),
    shortLinks: shortLinkModel(connection),
    close: () => connection.close(),
  };
  const models = [
    database.organizations, database.channels, database.customers, database.posts, database.media, database.notifications,
    database.users, database.sessions, database.oauthApps, database.oauthCodes, database.oauthGrants,
    database.connectAttempts, database.serverClients, database.analyticsDays,
    database.webhookEndpoints, database.webhookDeliveries, database.apiKeys, database.events,
    database.shortLinks,
  ] as const;
  for (const model of models) {
    await model.createCollection().catch((error: unknown) => {
      // A collection created by another process in the meantime is what we wanted.
      if (!(error instanceof Error && /already exists/i.test(error.message))) throw error;
    });
    await model.createIndexes();
  }
  return database;
}
