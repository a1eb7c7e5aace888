/**
 * LinkedIn Pages run on the same app, authority and API as member accounts: the one LinkedIn
 * simulator serves both (../linkedin/linkedin-simulator.ts). Page apps hold the Community
 * Management API, a Marketing Developer Platform product, whose partners get refresh tokens.
 */
import { startLinkedinSimulator, type LinkedinSimulator } from '../linkedin/linkedin-simulator.ts';

export type { SimulatedLinkedinMember, SimulatedOrganization } from '../linkedin/linkedin-simulator.ts';
export type LinkedinPageSimulator = LinkedinSimulator;

export function startLinkedinPageSimulator(): Promise<LinkedinPageSimulator> {
  return startLinkedinSimulator({ programmaticRefresh: true, platform: 'linkedin-page' });
}
