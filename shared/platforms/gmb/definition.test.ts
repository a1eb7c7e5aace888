import { describe, expect, it } from 'vitest';
import { validatePlatformPost } from '../validate-post.ts';
import { gmb } from './definition.ts';

/** The problems POST /posts reports for these settings on a one-part text post. */
function problems(settings: Record<string, unknown>) {
  return validatePlatformPost(gmb, { settings, parts: [{ text: 'Hello', media: [] }] }).problems;
}

const event = { title: 'Open day', startDate: '2030-05-01', endDate: '2030-05-01' };

describe('Google Business Profile settings, per topic type', () => {
  it('names the setting each topic type lacks or does not take', () => {
    expect(problems({ topicType: 'EVENT' })).toEqual([
      { path: 'settings.event', message: 'a Google Business Profile EVENT post needs event (title and dates)' },
    ]);
    expect(problems({ topicType: 'OFFER', offer: { couponCode: 'X' } }).map((problem) => problem.path))
      .toEqual(['settings.event']);
    expect(problems({ topicType: 'ALERT' })).toEqual([
      { path: 'settings.alertType', message: 'a Google Business Profile ALERT post needs alertType' },
    ]);
    expect(problems({ topicType: 'STANDARD', callToAction: { actionType: 'SHOP' } })).toEqual([
      { path: 'settings.callToAction.url', message: 'a SHOP call-to-action needs a url' },
    ]);
    expect(problems({ topicType: 'EVENT', event: { ...event, endDate: '2030-04-30' } })).toEqual([
      { path: 'settings.event.endDate', message: 'the event ends before it starts' },
    ]);
  });

  it('accepts each topic type with what it needs', () => {
    expect(problems({ topicType: 'STANDARD', callToAction: { actionType: 'SIGN_UP', url: 'https://a.example' } }))
      .toEqual([]);
    expect(problems({ topicType: 'EVENT', event })).toEqual([]);
    expect(problems({ topicType: 'OFFER', event, offer: { redeemOnlineUrl: 'https://a.example/o' } })).toEqual([]);
    expect(problems({ topicType: 'ALERT', alertType: 'COVID_19' })).toEqual([]);
  });

  it('declares that Google fetches the photo from its URL', () => {
    expect(gmb.mediaByUrl).toBe(true);
  });
});
