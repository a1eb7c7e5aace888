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
  postPublished: 'post.published',
  postFailed: 'post.failed',
} as const;

export type LogEvent = (typeof LogEvent)[keyof typeof LogEvent];
