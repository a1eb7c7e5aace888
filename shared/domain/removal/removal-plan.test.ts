import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { removalNotBuilt } from '../../platforms/kit/platform-removal.ts';
import { planRemoval } from './removal-plan.ts';

const part = (releaseId: string | null) => ({ _id: new Types.ObjectId(), releaseId });

describe('planning a removal', () => {
  it('queues published parts where the platform removes, and says why for the others', () => {
    const parts = [part('1'), part('missing'), part(null)];
    expect(planRemoval(parts, { supported: true, method: 'trash' }).map((planned) => [planned.state, planned.method]))
      .toEqual([['queued', 'trash'], ['unconfirmed', null], ['not_published', null]]);
  });

  it('answers unsupported with the room\'s reason for published parts only', () => {
    const planned = planRemoval([part('1'), part(null)], removalNotBuilt('DELETE /x'));
    expect(planned.map((entry) => [entry.state, entry.reason])).toEqual([
      ['unsupported', 'the platform can (DELETE /x); SPS does not do it yet'],
      ['not_published', 'the platform never received it'],
    ]);
  });
});
