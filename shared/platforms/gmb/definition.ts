import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

const day = z.iso.date();
const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time such as "18:30"');
const webAddress = z.url({ protocol: /^https?$/ });
const languageTag = z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as "en-US"');

/** Fields of a v4 LocalPost that SPS passes through; the post text becomes `summary`. */
const localPostFields = z.object({
  topicType: z.enum(
    ['STANDARD', 'EVENT', 'OFFER', 'ALERT'],
    whenMissing('a Business Profile post needs a topicType: STANDARD, EVENT, OFFER or ALERT'),
  )
    .describe('Kind of post (required): STANDARD update, EVENT, OFFER or ALERT'),
  languageCode: languageTag.optional().describe('Language of the post, such as en-US; en-US when absent'),
  callToAction: z
    .object({
      actionType: z.enum(['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'])
        .describe('Button shown on the post'),
      url: webAddress.optional()
        .describe('Where the button leads; required except for CALL, which dials the listing\'s phone'),
    })
    .optional()
    .describe('Action button; not used on OFFER posts'),
  event: z
    .object({
      title: z.string().trim().min(1).describe('Name of the event or offer'),
      startDate: day.describe('First day, YYYY-MM-DD'),
      startTime: timeOfDay.optional().describe('Start time, HH:MM; the whole day when absent'),
      endDate: day.describe('Last day, YYYY-MM-DD'),
      endTime: timeOfDay.optional().describe('End time, HH:MM; the whole day when absent'),
    })
    .optional()
    .describe('Title and dates; required for EVENT and OFFER posts'),
  offer: z
    .object({
      couponCode: z.string().trim().min(1).optional().describe('Code to use in store or online'),
      redeemOnlineUrl: webAddress.optional().describe('Where to redeem the offer online'),
      termsConditions: z.string().trim().min(1).optional().describe('Terms and conditions of the offer'),
    })
    .optional()
    .describe('Offer details; OFFER posts only'),
  alertType: z.enum(['COVID_19']).optional().describe('Kind of alert; required for ALERT posts, on them only'),
});

type LocalPostFields = z.output<typeof localPostFields>;
interface SettingProblem { path: string[]; message: string }

const brand = 'Google Business Profile';

function callToActionProblems({ topicType, callToAction }: LocalPostFields): SettingProblem[] {
  if (callToAction === undefined) return [];
  const path = ['callToAction'];
  if (topicType === 'OFFER') return [{ path, message: `${brand} ignores a call-to-action on OFFER posts: remove it` }];
  const { actionType, url } = callToAction;
  if (actionType === 'CALL' && url !== undefined) {
    return [{ path: [...path, 'url'], message: 'a CALL call-to-action takes no url' }];
  }
  if (actionType !== 'CALL' && url === undefined) {
    return [{ path: [...path, 'url'], message: `a ${actionType} call-to-action needs a url` }];
  }
  return [];
}

/** Which fields each topic type needs and takes (design-blogging-business.md 7.2), one sentence per broken rule. */
function topicTypeProblems(settings: LocalPostFields): SettingProblem[] {
  const { topicType, event, offer, alertType } = settings;
  const problems: SettingProblem[] = [];
  if ((topicType === 'EVENT' || topicType === 'OFFER') && event === undefined) {
    problems.push({ path: ['event'], message: `a ${brand} ${topicType} post needs event (title and dates)` });
  }
  const ends = `${event?.endDate ?? ''}T${event?.endTime ?? '23:59'}`;
  if (event !== undefined && ends < `${event.startDate}T${event.startTime ?? '00:00'}`) {
    problems.push({ path: ['event', 'endDate'], message: 'the event ends before it starts' });
  }
  if (offer !== undefined && topicType !== 'OFFER') {
    problems.push({ path: ['offer'], message: `offer details apply to ${brand} OFFER posts only` });
  }
  if (topicType === 'ALERT' && alertType === undefined) {
    problems.push({ path: ['alertType'], message: `a ${brand} ALERT post needs alertType` });
  }
  if (alertType !== undefined && topicType !== 'ALERT') {
    problems.push({ path: ['alertType'], message: `alertType applies to ${brand} ALERT posts only` });
  }
  return [...problems, ...callToActionProblems(settings)];
}

/** The settings, each topic type's own rules included, so POST /posts names the setting at fault. */
export const gmbSettings = localPostFields.superRefine((settings, context) => {
  for (const { path, message } of topicTypeProblems(settings)) context.addIssue({ code: 'custom', path, message });
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 7 (Google Business Profile). */
export const gmb = definePlatform({
  identifier: 'gmb',
  displayName: brand,
  group: 'business',
  textLimit: 1500,
  textCounting: 'code-points',
  replies: 'none',
  // 300 queries a minute per API for the operator's Google Cloud project (section 7.7).
  concurrentCalls: 1,
  mediaRules: 'At most 1 image (JPG or PNG, at least 250x250); no video.',
  rules: 'Each post is a local post on one business location; topicType is required, and EVENT and OFFER posts '
    + 'also need an event title and dates. A call-to-action button needs a URL except for CALL. Google may reject '
    + 'a post for policy reasons after it is sent. There are no comments or threads, so send one part only.',
  settings: gmbSettings,
  tools: [
    {
      methodName: 'locations',
      description: 'Lists the business locations of the connected Google accounts.',
      dataSchema: [],
    },
  ],
  // Google fetches the photo from its URL (design-blogging-business.md 7.3): POST /posts refuses
  // media served at an address Google cannot reach (media-reach.ts).
  mediaByUrl: true,
  checkPost({ parts }) {
    const problems: string[] = [];
    const { videos, total } = countMedia(parts);
    const image = parts[0]?.media[0];
    if (videos > 0) problems.push(`part 1 has a video; ${brand} posts take no video`);
    else if (total > 1) problems.push(`part 1 has ${String(total)} images; ${brand} takes at most 1`);
    else if (image !== undefined) {
      if (image.mimeType !== 'image/jpeg' && image.mimeType !== 'image/png') {
        problems.push(`the image is ${image.mimeType}; ${brand} takes JPG or PNG`);
      }
      if (image.width !== null && image.height !== null && (image.width < 250 || image.height < 250)) {
        problems.push(`the image is ${String(image.width)}x${String(image.height)}; ${brand} needs at least 250x250`);
      }
    }
    return problems;
  },
});
