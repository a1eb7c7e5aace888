/** Asks the workers to read a channel's counters from its platform (the analytics queue holds it). */
export interface AnalyticsGathering {
  request(channelId: string): Promise<void>;
}
