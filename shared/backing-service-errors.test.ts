import { describe, expect, it } from 'vitest';
import { unavailableBackingService } from './backing-service-errors.ts';

describe('unavailableBackingService on a Redis Cluster', () => {
  it('counts a failover or a cluster without an answering node as the queue being away', () => {
    const messages = [
      'Too many Cluster redirections. Last error: Error: Connection is closed.',
      'Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down',
      'CLUSTERDOWN The cluster is down',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      'Cluster isn\'t ready and enableOfflineQueue options is false',
      'Failed to refresh slots cache.',
    ];
    const services = messages.map((message) => unavailableBackingService(new Error(message)));
    expect(services).toEqual(messages.map(() => 'queue'));
  });

  it('leaves a script refused for its keys (a bug, not an outage) to the caller', () => {
    const crossSlot = new Error('CROSSSLOT Keys in request don\'t hash to the same slot');
    expect(unavailableBackingService(crossSlot)).toBeNull();
  });
});
