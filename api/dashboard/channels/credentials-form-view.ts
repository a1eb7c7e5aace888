import type { CredentialField, CredentialsConnect } from '../../../shared/platforms/kit/platform-connect.ts';
import type { PlatformModule } from '../../../shared/platforms/kit/platform-module.ts';
import { html, type SafeHtml } from '../html.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { csrfField } from '../layout.ts';
import type { DashboardRouterContext } from '../state.ts';

/*
 * The connect form of a credentials platform (a token, a password, an instance address): the
 * fields its room declares, as the dashboard's connect pages and form links show them.
 */

/** The channel being reconnected, carried through the form. */
export function refreshField(refresh: string | null): SafeHtml {
  return refresh === null ? html`` : html`<input type="hidden" name="refresh" value="${refresh}" />`;
}

function fieldInput(t: Translate, field: CredentialField, value: string): SafeHtml {
  const id = `field-${field.key}`;
  const required = field.optional === true ? html`` : html` required`;
  const shown = field.kind === 'secret' ? '' : value;
  // Addresses are text with a URL keyboard: SPS adds https:// to a bare host, which type="url" would refuse.
  const input =
    field.kind === 'textarea'
      ? html`<textarea id="${id}" name="${field.key}" rows="4" ${required}>${shown}</textarea>`
      : html`<input
          id="${id}"
          name="${field.key}"
          type="${field.kind === 'secret' ? 'password' : 'text'}"
          ${field.kind === 'url' ? html` inputmode="url"` : ''}
          value="${shown}"
          autocomplete="off"
          ${required}
        />`;
  // The platform's own label and help are shown as its room writes them, in English, and marked so
  // (lang="en": a screen reader reading a German page says them in English); only the mark of an
  // optional field is ours.
  const platformLabel = html`<span lang="en">${field.label}</span>`;
  const label = field.optional === true ? t.markup('connect.optionalField', { label: platformLabel }) : platformLabel;
  return html`<p>
    <label for="${id}">${label}</label><br />${input}<br /><span
      class="muted" lang="en"
      >${field.help}</span
    >
  </p>`;
}

export interface CredentialsFormState {
  refresh: string | null;
  values: Record<string, string>;
  problem: string | null;
  /** The form link's key (GET /social/:provider): it, not the session, names the organization. */
  link?: { key: string; organizationName: string };
}

export function credentialsForm(
  ctx: DashboardRouterContext,
  module: PlatformModule,
  connect: CredentialsConnect,
  state: CredentialsFormState,
): SafeHtml {
  const { identifier, displayName } = module.definition;
  const t = words(ctx);
  const problem = state.problem === null ? html`` : html`<p class="error" role="alert">${state.problem}</p>`;
  const { link } = state;
  const linkParts =
    link === undefined
      ? { intro: html``, key: html`` }
      : {
          intro: html`<p>${t.markup('connect.linkIntro', {
            platform: displayName,
            organization: html`<strong>${link.organizationName}</strong>`,
          })}</p>`,
          key: html`<input type="hidden" name="key" value="${link.key}" />`,
        };
  return html`${linkParts.intro}${problem}
    <form method="post" action="/channels/connect/${identifier}">
      ${csrfField(ctx)}${refreshField(state.refresh)}${linkParts.key}
      ${connect.fields.map((field) => fieldInput(t, field, state.values[field.key] ?? ''))}
      <button type="submit">${t('connect.connectPlatform', { platform: displayName })}</button>
    </form>`;
}
