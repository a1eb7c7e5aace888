import { Agent, request } from 'node:http';

export interface JsonRequest {
  /** POST unless told; a GET sends no body. */
  method?: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface HttpAnswer {
  status: number;
  body: string;
}

/** One request (a POST with its JSON body) over a keep-alive agent; resolves with the status and the whole body. */
export function sendJson(agent: Agent, target: JsonRequest): Promise<HttpAnswer> {
  const method = target.method ?? 'POST';
  const bodyHeaders = method === 'GET'
    ? {}
    : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(target.body) };
  return new Promise((resolve, reject) => {
    const outgoing = request(target.url, {
      method, agent, headers: { ...target.headers, ...bodyHeaders },
    }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => { resolve({ status: response.statusCode ?? 0, body }); });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(method === 'GET' ? undefined : target.body);
  });
}

export interface LoadResult {
  /** 2xx answers completed inside the measured window. */
  completed: number;
  requestsPerSecond: number;
  /** Non-2xx answers and transport errors, warm-up included: any one fails the measure. */
  errors: number;
  firstError: string | null;
}

/**
 * `connections` loops, each sending the next request as soon as the previous answer is read,
 * for `warmupMs` (not counted) and then `durationMs` (counted).
 */
export async function runLoad(
  makeRequest: () => JsonRequest,
  options: { connections: number; warmupMs: number; durationMs: number },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const measureFrom = performance.now() + options.warmupMs;
  const measureUntil = measureFrom + options.durationMs;
  let completed = 0;
  let errors = 0;
  let firstError: string | null = null;
  const recordError = (message: string): void => {
    errors += 1;
    firstError ??= message;
  };
  const loop = async (): Promise<void> => {
    while (performance.now() < measureUntil) {
      try {
        const answer = await sendJson(agent, makeRequest());
        const finishedAt = performance.now();
        if (answer.status < 200 || answer.status > 299) recordError(`${answer.status}: ${answer.body.slice(0, 300)}`);
        else if (finishedAt >= measureFrom && finishedAt <= measureUntil) completed += 1;
      } catch (error) {
        recordError(error instanceof Error ? error.message : String(error));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, loop));
  } finally {
    agent.destroy();
  }
  return { completed, requestsPerSecond: completed / (options.durationMs / 1000), errors, firstError };
}

/** Sends every request, `connections` at a time; throws on the first non-2xx answer. */
export async function sendAll(requests: readonly JsonRequest[], connections: number): Promise<HttpAnswer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const answers: HttpAnswer[] = new Array<HttpAnswer>(requests.length);
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < requests.length) {
      const index = next;
      next += 1;
      const target = requests[index];
      if (target === undefined) return;
      const answer = await sendJson(agent, target);
      if (answer.status < 200 || answer.status > 299) {
        throw new Error(`${target.url} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      }
      answers[index] = answer;
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    agent.destroy();
  }
  return answers;
}
