import {
  startFacebookSimulator, type FacebookSimulator, type SimulatedInstagramAccount,
} from '../facebook/facebook-simulator.ts';

/**
 * Instagram through Facebook Login is Facebook's dialog, token endpoint and Graph API: an
 * Instagram professional account is reached through the Page it is linked to
 * (`/me/accounts?fields=instagram_business_account{...}`), and read at `/{ig-user-id}` with
 * that Page's token. This is the Facebook simulator, with accounts linked to Pages.
 * Facts: ../shared/platforms/oauth-majors.md, section 4.1.
 */
export interface InstagramSimulator extends FacebookSimulator {
  /** Links `account` to a Page `user` has a role on (all tasks unless given; publishing needs CREATE_CONTENT). */
  linkAccount(user: string, page: LinkedPage, account: SimulatedInstagramAccount): void;
}

export interface LinkedPage {
  id: string;
  name: string;
  tasks?: string[];
}

export async function startInstagramSimulator(): Promise<InstagramSimulator> {
  const graph = await startFacebookSimulator();
  return {
    ...graph,
    linkAccount: (user, page, account) => {
      const tasks = page.tasks ?? ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'];
      const pictureUrl = `https://scontent.example/${page.id}.jpg`;
      graph.addPages(user, [{ ...page, tasks, pictureUrl, instagram: account }]);
    },
  };
}
