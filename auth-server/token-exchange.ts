import { z } from 'zod';

const tokenResponse = z.object({ id: z.string(), access_token: z.string().startsWith('pos_') });

/** Exchanges an authorization code at the service's token endpoint with the auth server's own app. */
export async function exchangeAtService(input: { apiUrl: string; clientId: string; clientSecret: string; code: string }): Promise<{ accessToken: string; organizationId: string }> {
  const response = await fetch(`${input.apiUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', code: input.code, client_id: input.clientId, client_secret: input.clientSecret }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const body = parseJson(text);
  const parsed = tokenResponse.safeParse(body);
  if (!response.ok || !parsed.success) {
    const error = typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : `HTTP ${response.status}`;
    throw new Error(`the service refused the code (${error})`);
  }
  return { accessToken: parsed.data.access_token, organizationId: parsed.data.id };
}

/** The body as JSON, or null when the service answered something else (an HTML error page, say). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
