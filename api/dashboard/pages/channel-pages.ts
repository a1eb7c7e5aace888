import type Router from '@koa/router';
import { deleteChannel, listChannels, type ChannelView } from '../../../shared/domain/channels/channels.ts';
import { DomainError } from '../../../shared/errors.ts';
import { publishingProviders } from '../../../shared/platforms/platforms.ts';
import type { PlatformDefinition } from '../../../shared/platforms/kit/platform-definition.ts';
import { allPlatforms, findPlatform } from '../../../shared/platforms/platforms.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

function channelStatus(channel: ChannelView): string {
  if (channel.disabled) return 'Disabled';
  if (channel.refreshNeeded) return 'Needs reconnecting';
  return 'Active';
}

function channelRow(ctx: DashboardRouterContext, channel: ChannelView): SafeHtml {
  const picture = webUrl(channel.picture);
  return html`<tr>
  <td>${picture === null ? '' : html`<img src="${picture}" alt="" width="24" height="24"> `}${channel.name}${channel.profile === null ? '' : html` <span class="muted">${channel.profile}</span>`}</td>
  <td>${findPlatform(channel.identifier)?.displayName ?? channel.identifier}</td>
  <td>${channel.customer?.name ?? ''}</td>
  <td>${channelStatus(channel)}</td>
  <td><form method="post" action="/channels/${channel.id}/disconnect" class="inline">${csrfField(ctx)}<button type="submit" class="danger" aria-label="Disconnect ${channel.name}">Disconnect</button></form></td>
</tr>`;
}

function connectInstructions(platform: PlatformDefinition, organizationId: string): SafeHtml {
  if (platform.identifier === 'mastodon') {
    return html`<p>Mastodon channels are connected with an access token of the account, by an operator of this SPS installation:</p>
<ol>
  <li>On the Mastodon instance, open Preferences, then Development, and create a new application with the <code>write:statuses</code>, <code>write:media</code> and <code>read:accounts</code> scopes (SPS posts statuses with their media and reads the account to find recent posts).</li>
  <li>Copy the application's access token.</li>
  <li>Run on the SPS server:
    <pre><code>npm run channel:add -- --org ${organizationId} --provider mastodon --name "Our Mastodon" --instance https://mastodon.example --token &lt;access token&gt;</code></pre>
  </li>
</ol>
<p>The channel then appears on the <a href="/channels">channels page</a> and in <code>GET /api/public/v1/integrations</code>.</p>`;
  }
  if (publishingProviders.has(platform.identifier)) {
    return html`<p>Ask an operator of this SPS installation to connect the ${platform.displayName} account for organization <code>${organizationId}</code>.</p>`;
  }
  return html`<p class="notice">${platform.displayName} channels cannot be connected yet: SPS does not publish to ${platform.displayName} so far. Its rules are already known, so posts for it are validated once it is available.</p>`;
}

export function registerChannelPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/channels', requireSignIn(), async (ctx) => {
    const channels = await listChannels(deps.db, signedIn(ctx).organization.id);
    const table = channels.length === 0
      ? html`<p>No channels are connected to this organization yet.</p>`
      : html`<table><caption class="muted">Connected channels</caption>
<thead><tr><th scope="col">Channel</th><th scope="col">Platform</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${channels.map((channel) => channelRow(ctx, channel))}</tbody></table>
<p class="muted">Disconnecting a channel also deletes its unpublished posts.</p>`;
    const platforms = allPlatforms().map((platform) => html`<li><a href="/channels/connect/${platform.identifier}">${platform.displayName}</a></li>`);
    renderPage(ctx, { title: 'Channels', body: html`${table}<h2>Connect a channel</h2><ul>${platforms}</ul>` });
  });

  router.post('/channels/:id/disconnect', requireSignIn(), async (ctx) => {
    await deleteChannel(deps, signedIn(ctx).organization.id, ctx.params.id ?? '');
    ctx.redirect('/channels');
  });

  router.get('/channels/connect/:provider', requireSignIn(), (ctx) => {
    const platform = findPlatform(ctx.params.provider ?? '');
    if (platform === undefined) throw new DomainError('not_found', `SPS does not know a platform called "${ctx.params.provider ?? ''}"`);
    renderPage(ctx, {
      title: `Connect ${platform.displayName}`,
      body: html`${connectInstructions(platform, signedIn(ctx).organization.id)}
<h2>About ${platform.displayName}</h2>
<p>${platform.rules}</p>
<p>Text limit: ${platform.textLimit} characters. ${platform.mediaRules}</p>
<p><a href="/channels">Back to channels</a></p>`,
    });
  });
}
