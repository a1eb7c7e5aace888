import { z } from 'zod';
import type { AnalyticsCounter } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import type { LinkedinApi } from '../linkedin-family/linkedin-http.ts';
import type { LinkedinPageCredential } from './credential.ts';

const networkSize = z.object({ firstDegreeSize: z.number().int().min(0) });

const shareStatistics = z.object({
  elements: z.array(z.object({
    totalShareStatistics: z.object({
      impressionCount: z.number().optional(),
      clickCount: z.number().optional(),
      likeCount: z.number().optional(),
      commentCount: z.number().optional(),
      shareCount: z.number().optional(),
    }).loose(),
  }).loose()),
});

function unreadable(what: string): PlatformError {
  return unreadableAnswer('linkedin-page', `LinkedIn answered ${what} in a shape`);
}

/** The Page's followers: the size of its COMPANY_FOLLOWED_BY_MEMBER network (rw/r_organization_admin). */
export async function pageFollowers(api: LinkedinApi, page: LinkedinPageCredential): Promise<AnalyticsCounter[]> {
  const path = `/rest/networkSizes/${encodeURIComponent(page.organization)}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`;
  const answer = networkSize.safeParse(await api.rest(page.accessToken, { method: 'GET', path }));
  if (!answer.success) throw unreadable('the follower count');
  return [{ label: 'Followers', value: answer.data.firstDegreeSize }];
}

/**
 * One post's lifetime totals from organizationalEntityShareStatistics (no time range: lifetime).
 * A share is asked for under `shares`, a ugcPost under `ugcPosts`, each a Rest.li List of URNs.
 */
export async function pagePostStatistics(
  api: LinkedinApi,
  page: LinkedinPageCredential,
  postUrn: string,
): Promise<AnalyticsCounter[]> {
  const list = postUrn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
  const query = `q=organizationalEntity&organizationalEntity=${encodeURIComponent(page.organization)}`
    + `&${list}=List(${encodeURIComponent(postUrn)})`;
  const path = `/rest/organizationalEntityShareStatistics?${query}`;
  const answer = shareStatistics.safeParse(await api.rest(page.accessToken, { method: 'GET', path }));
  if (!answer.success) throw unreadable('the post statistics');
  const totals = answer.data.elements[0]?.totalShareStatistics;
  if (totals === undefined) return [];
  const counters: [string, number | undefined][] = [
    ['Impressions', totals.impressionCount],
    ['Clicks', totals.clickCount],
    ['Likes', totals.likeCount],
    ['Comments', totals.commentCount],
    ['Shares', totals.shareCount],
  ];
  return counters.flatMap(([label, value]) => (value === undefined ? [] : [{ label, value }]));
}
