/**
 * The closed set of event names SPS logs, so logs can be queried by `event` without guessing
 * at free text.
 */
export const LogEvent = {
  serviceListening: 'service.listening',
  serviceStopping: 'service.stopping',
  serviceStopped: 'service.stopped',
  requestCompleted: 'request.completed',
  requestFailed: 'request.failed',
  jobStarted: 'job.started',
  jobCompleted: 'job.completed',
  jobRetrying: 'job.retrying',
  jobFailed: 'job.failed',
  jobDelayed: 'job.delayed',
  workerError: 'worker.error',
  /** A dependency failed its /ready check; the line keeps the error /ready does not answer. */
  readinessFailed: 'readiness.failed',
  postPublished: 'post.published',
  postFailed: 'post.failed',
  /** An upload's connection closed before the whole file arrived; what was stored of it is removed. */
  uploadInterrupted: 'upload.interrupted',
  /** A refused upload's remaining body was read and dropped so the client could see the answer. */
  uploadDrained: 'upload.drained',
  /** A post whose job was lost or failed without settling it was put back in the queue. */
  postRecovered: 'post.recovered',
  publishSweep: 'publish.sweep',
  tokenSweep: 'token.sweep',
  /** An OAuth code was presented again after it was redeemed; the token issued from it was revoked. */
  oauthCodeReused: 'oauth.code_reused',
  oauthClientRegistered: 'oauth.client_registered',
  /** A client address went over a throttle (logins, sign-ups, user codes, device codes). */
  clientThrottled: 'client.throttled',
  /** Work turned away because a bound was reached (password hashing, live device requests). */
  serviceBusy: 'service.busy',
  /** The auth server deleted expired device requests and throttle windows. */
  authSweep: 'auth.sweep',
  /** An event could not be written to the webhook outbox: its deliveries will not be made. */
  webhookNotRecorded: 'webhook.not_recorded',
  /** A webhook attempt got a 2xx. */
  webhookDelivered: 'webhook.delivered',
  /** A webhook attempt failed; another follows on the retry schedule. */
  webhookRetrying: 'webhook.retrying',
  /** A webhook delivery failed its last attempt. */
  webhookFailed: 'webhook.failed',
  /**
   * The dispatcher's round (the safety net): overdue deliveries queued again, and attempts whose
   * worker stopped.
   */
  webhookDispatch: 'webhook.dispatch',
  /** A written delivery's attempt could not be queued; the dispatcher queues it once overdue. */
  webhookNotQueued: 'webhook.not_queued',
  /** A named API key's last-used time could not be written; the request went on. */
  apiKeyUseNotRecorded: 'api_key.use_not_recorded',
} as const;

export type LogEvent = (typeof LogEvent)[keyof typeof LogEvent];
