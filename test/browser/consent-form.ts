import type { DashboardClient, PageAnswer } from './dashboard-client.ts';

const entities: Record<string, string> = {
  '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#96;': '`',
};

/** Attribute values as the browser reads them: the page escapes every value it renders. */
function unescaped(value: string): string {
  return value.replace(/&(?:amp|lt|gt|quot|#39|#96);/g, (entity) => entities[entity] ?? entity);
}

/**
 * What a browser would submit from the consent page's form: its hidden fields (the authorization
 * request as the page carries it) and the organization selected. The CSRF field is left to the
 * client, which sends the token of the page it loaded.
 */
export function consentFormFields(page: string): Record<string, string> {
  const start = page.indexOf('<form method="post" action="/oauth/authorize">');
  if (start < 0) throw new Error('the page has no consent form');
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    const [, name = '', value = ''] = match;
    if (name !== '_csrf') fields[name] = unescaped(value);
  }
  const organization = /<option value="([0-9a-f]{24})" selected>/.exec(form)?.[1];
  if (organization !== undefined) fields.organization_id = organization;
  return fields;
}

/** Opens the consent page at `path` as `user` and presses Authorize (or Deny); redirects are not followed. */
export async function decideOnConsent(
  user: DashboardClient,
  path: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ page: PageAnswer; answer: PageAnswer }> {
  const page = await user.get(path);
  if (page.status !== 200) return { page, answer: page };
  const answer = await user.post('/oauth/authorize', { ...consentFormFields(page.html), decision });
  return { page, answer };
}
