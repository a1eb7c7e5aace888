import { z } from 'zod';
import type { GmbApi } from './gmb-api.ts';

/**
 * Every Business Profile location a Google token manages: accounts.list on the Account
 * Management API, then each account's locations.list on the Business Information API (which
 * refuses a list without `readMask`). The connect step's picker and the `locations` tool read
 * the same list. Facts: ../shared/platforms/design-blogging-business.md, sections 7.1 and 7.8.
 */

/** Google pages both lists; a runaway nextPageToken must not hold a caller forever. */
const maxPages = 20;

const accountPage = z.object({
  accounts: z.array(z.object({
    name: z.string().regex(/^accounts\/[^/]+$/),
    accountName: z.string().optional(),
  })).optional(),
  nextPageToken: z.string().optional(),
});

const location = z.object({ name: z.string().regex(/^locations\/[^/]+$/), title: z.string().optional() });
const locationPage = z.object({
  locations: z.array(location).optional(),
  nextPageToken: z.string().optional(),
});

export interface ManagedLocation {
  /** `accounts/123`. */
  account: string;
  accountName: string | null;
  /** `locations/456`. */
  location: string;
  title: string | null;
}

/** Every page of a Google list, one after the other, each page's items through `itemsOf`. */
async function allPages<P extends { nextPageToken?: string | undefined }, I>(
  fetchPage: (pageToken: string | null) => Promise<P>,
  itemsOf: (page: P) => I[] | undefined,
): Promise<I[]> {
  const items: I[] = [];
  let pageToken: string | null = null;
  for (let count = 0; count < maxPages; count += 1) {
    const page = await fetchPage(pageToken);
    items.push(...(itemsOf(page) ?? []));
    if (page.nextPageToken === undefined || page.nextPageToken === '') break;
    pageToken = page.nextPageToken;
  }
  return items;
}

const withPage = (query: Record<string, string>, pageToken: string | null): URLSearchParams =>
  new URLSearchParams({ ...query, ...(pageToken === null ? {} : { pageToken }) });

export async function managedLocations(api: GmbApi): Promise<ManagedLocation[]> {
  const accounts = await allPages((pageToken) => api.get('mybusinessaccountmanagement', '/v1/accounts',
    withPage({}, pageToken), accountPage, 'the list of accounts'), (page) => page.accounts);
  const managed: ManagedLocation[] = [];
  // One account after the other, so a refusal names the request that failed.
  for (const account of accounts) {
    const locations = await allPages((pageToken) => api.get('mybusinessbusinessinformation',
      `/v1/${account.name}/locations`, withPage({ readMask: 'name,title', pageSize: '100' }, pageToken),
      locationPage, 'the list of locations'), (page) => page.locations);
    managed.push(...locations.map((item) => ({
      account: account.name,
      accountName: account.accountName ?? null,
      location: item.name,
      title: item.title ?? null,
    })));
  }
  return managed;
}
