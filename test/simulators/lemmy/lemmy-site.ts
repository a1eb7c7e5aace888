import type { LemmyRateLimiter } from './lemmy-rate-limit.ts';
import type { LemmyState, SimulatedLemmyUser } from './lemmy-state.ts';

/**
 * `GET /api/v3/site` as Lemmy 0.19 answers it (lemmy-js-client 0.19.9 GetSiteResponse): the site,
 * its local settings and rate limits (open-and-community.md 7.7), and, for a signed-in caller,
 * `my_user` with the local user and the communities they follow and moderate. Settings the
 * simulator does not model hold Lemmy's defaults for a new instance.
 */

/** The "undetermined" language every instance lists first. */
const languages = [{ id: 0, code: 'und', name: 'Undetermined' }, { id: 37, code: 'en', name: 'English' }];

/** The local user row behind a person, with Lemmy's defaults for the settings the simulator does not keep. */
function localUser(user: SimulatedLemmyUser) {
  return {
    id: user.id, person_id: user.id, email: user.email, show_nsfw: false, theme: 'browser',
    default_sort_type: 'Active', default_listing_type: 'Local', interface_language: 'browser', show_avatars: true,
    send_notifications_to_email: false, show_scores: true, show_bot_accounts: true, show_read_posts: true,
    email_verified: false, accepted_application: true, open_links_in_new_tab: false, blur_nsfw: true,
    auto_expand: false, infinite_scroll_enabled: false, admin: false, post_listing_mode: 'List',
    totp_2fa_enabled: user.totp !== undefined, enable_keyboard_navigation: false, enable_animated_images: true,
    collapse_bot_comments: false,
  };
}

function myUser(state: LemmyState, user: SimulatedLemmyUser) {
  const view = state.personView(user);
  const person = view.person;
  const known = state.communities.filter((community) => community.known !== false);
  return {
    local_user_view: {
      local_user: localUser(user),
      local_user_vote_display_mode: {
        local_user_id: user.id, score: false, upvotes: true, downvotes: true, upvote_percentage: false,
      },
      person,
      counts: view.counts,
    },
    follows: known.filter((community) => (community.subscribers ?? []).includes(user.id))
      .map((community) => ({ community: state.community(community), follower: person })),
    moderates: known.filter((community) => (community.moderators ?? []).includes(user.id))
      .map((community) => ({ community: state.community(community), moderator: person })),
    community_blocks: [],
    instance_blocks: [],
    person_blocks: [],
    discussion_languages: [],
  };
}

export function siteAnswer(state: LemmyState, rateLimits: LemmyRateLimiter, user: SimulatedLemmyUser | null) {
  const published = state.startedAt;
  const site = {
    id: 1, name: 'Simulated Lemmy', published, actor_id: `${state.origin}/`, last_refreshed_at: published,
    inbox_url: `${state.origin}/site_inbox`,
    public_key: '-----BEGIN PUBLIC KEY-----\nsimulated\n-----END PUBLIC KEY-----\n',
    instance_id: 1,
  };
  const localSite = {
    id: 1, site_id: 1, site_setup: true, enable_downvotes: true, enable_nsfw: true,
    community_creation_admin_only: false, require_email_verification: false, private_instance: false,
    default_theme: 'browser', default_post_listing_type: 'Local', hide_modlog_mod_names: true,
    application_email_admins: false,
    ...(state.slurFilter === null ? {} : { slur_filter_regex: state.slurFilter.source }),
    actor_name_max_length: 20, federation_enabled: true, captcha_enabled: false, captcha_difficulty: 'medium',
    published, registration_mode: 'RequireApplication', reports_email_admins: false, federation_signed_fetch: false,
    default_post_listing_mode: 'List', default_sort_type: 'Active',
  };
  const local = state.communities.filter((community) => community.remoteHost === undefined);
  const counts = {
    site_id: 1, users: state.users.length, posts: state.posts.length, comments: state.comments.length,
    communities: local.length, users_active_day: 0, users_active_week: 0, users_active_month: 0,
    users_active_half_year: 0,
  };
  const siteView = { site, local_site: localSite, local_site_rate_limit: rateLimits.siteView(published), counts };
  const answer = {
    site_view: siteView, admins: [], version: '0.19.20', all_languages: languages, discussion_languages: [],
    taglines: [], custom_emojis: [], blocked_urls: [],
  };
  return user === null ? answer : { ...answer, my_user: myUser(state, user) };
}
