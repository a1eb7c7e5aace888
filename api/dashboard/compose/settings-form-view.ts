import { html, type SafeHtml } from '../html.ts';
import type { Translate } from '../i18n/translate.ts';
import type { ComposerChannel } from './composer-channels.ts';
import { problemList } from './problem-list.ts';
import { settingFields, type SettingField } from './settings-fields.ts';

/** The id of the problem list beside one setting of one channel (the live check swaps it). */
export const settingProblemsId = (channelId: string, key: string): string => `setting-${channelId}-${key}-problems`;

/** Words for a key written as code (`spoiler_text`, `publicationId`): "spoiler text", "publication id". */
const labelOf = (key: string): string => {
  const words = key.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function input(field: SettingField, id: string, name: string, value: string, t: Translate): SafeHtml {
  const described = html` aria-describedby="${id}-help ${id}-problems"`;
  // No `required`: a hidden form of a channel not chosen would stop the browser from sending.
  const required = '';
  if (field.kind === 'choice' || field.kind === 'yes-no') {
    const choices = field.kind === 'choice' ? field.choices.map((choice) => [choice, choice] as const)
      : [['true', t('compose.yes')], ['false', t('compose.no')]] as const;
    const options = choices.map(([choiceValue, label]) =>
      html`<option value="${choiceValue}"${choiceValue === value ? html` selected` : ''}>${label}</option>`);
    return html`<select id="${id}" name="${name}"${described}${required}>
<option value="">${field.required ? t('compose.choose') : t('compose.platformDefault')}</option>${options}</select>`;
  }
  const type = field.kind === 'number' ? 'number' : 'text';
  const maxLength = field.maxLength === null ? '' : html` maxlength="${field.maxLength}"`;
  return html`<input id="${id}" name="${name}" type="${type}" value="${value}"${maxLength}${described}${required}>`;
}

function fieldRow(
  channel: ComposerChannel, field: SettingField, typed: string, problems: readonly string[], t: Translate,
): SafeHtml {
  const id = `setting-${channel.id}-${field.key}`;
  // The schema's own help is the platform's, in English; the hint on lists is ours.
  const help = [field.help ?? '', field.kind.endsWith('-list') ? t('compose.separateWithCommas') : '']
    .filter((words) => words !== '').join('. ');
  const label = labelOf(field.key);
  if (field.kind === 'api-only') {
    const code = html`<code>settings.${field.key}</code>`;
    return html`<p class="muted">${t.markup('compose.setThroughApi', { label, code })}</p>`;
  }
  return html`<label for="${id}">${field.required ? label : t('compose.optionalLabel', { label })}</label>
${input(field, id, `settings[${channel.id}][${field.key}]`, typed, t)}
<span class="muted" id="${id}-help">${help}</span>
${problemList(settingProblemsId(channel.id, field.key), problems)}`;
}

/**
 * The platform's settings form for one channel, generated from its settings schema: shown under
 * the channel once it is chosen (CSS), sent as that channel's post settings.
 */
export function channelSettingsForm(
  channel: ComposerChannel,
  typed: Readonly<Record<string, string>>,
  problems: ReadonlyMap<string, readonly string[]>,
  t: Translate,
): SafeHtml {
  if (channel.platform.settings === null) return html``;
  const fields = settingFields(channel.platform.settings);
  if (fields.length === 0) return html``;
  const legend = t('compose.settingsFor', { platform: channel.platform.displayName, channel: channel.name });
  return html`<fieldset class="channel-settings"><legend>${legend}</legend>
${fields.map((field) => fieldRow(channel, field, typed[field.key] ?? '', problems.get(field.key) ?? [], t))}
</fieldset>`;
}

/** The settings' problem lists of the chosen channels, swapped in out of band by the live check. */
export function settingProblems(
  channels: readonly ComposerChannel[],
  problems: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>,
): SafeHtml {
  const lists = channels.flatMap((channel) => {
    const fields = channel.platform.settings === null ? [] : settingFields(channel.platform.settings);
    return fields.filter((field) => field.kind !== 'api-only').map((field) =>
      problemList(settingProblemsId(channel.id, field.key), problems.get(channel.id)?.get(field.key) ?? [], true));
  });
  return html`${lists}`;
}
