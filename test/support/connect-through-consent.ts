import { expect } from 'vitest';
import { api } from './fixtures.ts';

/**
 * Connects an OAuth platform as a user does: `GET /social/<provider>` with the organization's key,
 * the platform's consent page (a simulator that approves at once and redirects), then the
 * dashboard's callback, whose page names the new channel. Answers the channel's id.
 */
export async function connectThroughConsent(baseUrl: string, apiKey: string, provider: string): Promise<string> {
  const started = await api(baseUrl, apiKey, `/api/public/v1/social/${provider}`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const consent = await fetch((started.body as { url: string }).url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location') ?? '');
  const page = await fetch(`${baseUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
  const html = await page.text();
  const channelId = /channel <code>([0-9a-f]{24})<\/code>/.exec(html)?.[1];
  if (page.status !== 200 || channelId === undefined) {
    throw new Error(`the callback answered ${String(page.status)}: ${html.slice(0, 500)}`);
  }
  return channelId;
}
