import type { OAuthAuthority } from '../kit/oauth-authority.ts';
import { gmbRoutes } from './gmb-routes.ts';
import { GmbStore } from './gmb-store.ts';
import { startGoogleSimulator, type RunningGoogleSimulator, type SimulatedGoogleUser } from './google-simulator.ts';

/**
 * The Google simulator with Google Business Profile's publishing side (gmb-routes.ts) on its
 * origin, beside the consent, token, accounts and locations routes it serves for the connect
 * step. `store` holds the local posts and metrics and takes the faults a test asks for:
 * `failNext` per step (an answer, or `{lose: true}` to act and drop the connection).
 */
export interface GmbSimulator extends RunningGoogleSimulator {
  store: GmbStore;
}

export async function startGmbSimulator(users: Record<string, SimulatedGoogleUser>): Promise<GmbSimulator> {
  const store = new GmbStore();
  let authority: OAuthAuthority | null = null;
  const google = await startGoogleSimulator(users, {
    routes: gmbRoutes({
      store,
      authority: () => {
        if (authority === null) throw new Error('the Google simulator is not started yet');
        return authority;
      },
    }),
  });
  authority = google.authority;
  return { ...google, store };
}
