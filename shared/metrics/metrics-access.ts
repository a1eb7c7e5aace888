import { timingSafeEqual } from 'node:crypto';

/** A refused scrape: what /metrics answers instead (the api and the workers answer alike). */
export interface MetricsRefusal {
  status: 401 | 403;
  headers: Readonly<Record<string, string>>;
  body: { error: string; message: string };
}

const closed: MetricsRefusal = {
  status: 403,
  headers: {},
  body: {
    error: 'metrics_disabled',
    message: '/metrics is closed because METRICS_TOKEN is not set. Set METRICS_TOKEN (16 characters or more, '
      + 'e.g. `openssl rand -hex 32`) on the api and the workers, and scrape with `Authorization: Bearer <token>`.',
  },
};

const wrongToken: MetricsRefusal = {
  status: 401,
  headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
  body: { error: 'invalid_credentials', message: 'send the METRICS_TOKEN as a Bearer token' },
};

/**
 * Why a scrape may not read /metrics, or null when it may: only with `Authorization: Bearer
 * <METRICS_TOKEN>`, compared in constant time. Without a token nobody may read them: the series
 * name every route, queue and platform with their traffic, and the api's port is usually public
 * (docker-compose.yml publishes it), so an open default would show them to anyone who asks.
 */
export function metricsRefusal(token: string | undefined, authorization: string | undefined): MetricsRefusal | null {
  if (token === undefined) return closed;
  const sent = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
  if (sent === undefined) return wrongToken;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b) ? null : wrongToken;
}
