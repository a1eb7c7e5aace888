import { findLinks } from '../../../shared/platforms/kit/link-finder.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import type { Translate } from '../i18n/translate.ts';
import type { ComposerChannel } from './composer-channels.ts';
import type { PreviewPart } from './preview-parts.ts';

/** Mentions (`@name`, `@name@server`) and hashtags, each starting a word. Linear: no nested repeats. */
const mentionOrTag = new RegExp(
  '(?<![\\p{L}\\p{N}_@#])(@[\\p{L}\\p{N}_][\\p{L}\\p{N}_.-]*(?:@[\\p{L}\\p{N}-]+(?:\\.[\\p{L}\\p{N}-]+)+)?'
    + '|#[\\p{L}\\p{N}_]+)',
  'gu',
);

/** The preview shows a post's start: enough to judge it, never a megabyte of markup. */
const previewUnits = 5_000;

/** Plain text with its mentions and hashtags marked, escaped by construction. */
function wordsOf(text: string): SafeHtml[] {
  const pieces: SafeHtml[] = [];
  let from = 0;
  for (const match of text.matchAll(mentionOrTag)) {
    const kind = match[0].startsWith('#') ? 'tag' : 'mention';
    pieces.push(html`${text.slice(from, match.index)}<span class="${kind}">${match[0]}</span>`);
    from = match.index + match[0].length;
  }
  pieces.push(html`${text.slice(from)}`);
  return pieces;
}

/** A part's text as the platform would show it: links, mentions and hashtags stand out. */
export function previewText(text: string): SafeHtml {
  const shown = text.length > previewUnits ? `${text.slice(0, previewUnits)}…` : text;
  const pieces: SafeHtml[] = [];
  let from = 0;
  for (const link of findLinks(shown, { withoutScheme: false })) {
    pieces.push(...wordsOf(shown.slice(from, link.start)));
    pieces.push(html`<span class="link">${shown.slice(link.start, link.end)}</span>`);
    from = link.end;
  }
  pieces.push(...wordsOf(shown.slice(from)));
  return html`${pieces}`;
}

/** The channel's picture, or its initial where it has none (or one that is not a web address). */
export function channelAvatar(channel: ComposerChannel, className: string): SafeHtml {
  const picture = webUrl(channel.picture);
  if (picture === null) {
    return html`<span class="${className} avatar-fallback" aria-hidden="true">${channel.name.slice(0, 1)}</span>`;
  }
  return html`<img class="${className}" src="${picture}" alt="" referrerpolicy="no-referrer">`;
}

/** "Image: card.png": a file named with its kind. */
export function mediaName(item: { kind: 'image' | 'video'; name: string }, t: Translate): string {
  const { name } = item;
  return item.kind === 'video' ? t('compose.videoNamed', { name }) : t('compose.imageNamed', { name });
}

/** The part's media as a grid of pictures; a video shows its poster frame, marked as a video. */
function mediaGrid(media: PreviewPart['media'], t: Translate): SafeHtml {
  if (media.length === 0) return html``;
  const items = media.map((item) => {
    const picture = webUrl(item.picture);
    const unlabelled = item.kind === 'video' ? t('compose.previewVideoNoAlt') : t('compose.previewImageNoAlt');
    const label = item.alt === '' ? unlabelled : item.alt;
    return picture === null
      ? html`<span class="preview-media-missing">${mediaName(item, t)}</span>`
      : html`<span class="preview-picture"><img src="${picture}" alt="${label}" referrerpolicy="no-referrer">${
        item.kind === 'video' ? html`<span class="video-mark" aria-hidden="true">▶</span>` : ''}</span>`;
  });
  return html`<div class="preview-media">${items}</div>`;
}

/** A later part's place in the preview: a reply of the thread, or a comment under the post. */
function replyLabel(replies: ComposerChannel['platform']['replies'], number: number, t: Translate): string {
  return replies === 'thread' ? t('compose.previewReply', { number }) : t('compose.previewComment', { number });
}

/**
 * How the post would look on the channel: its name and avatar, each part as a post of the thread
 * (or as comments, or the first part alone, as the platform takes them), in a light look of the
 * platform's family.
 */
export function channelPreview(channel: ComposerChannel, parts: readonly PreviewPart[], t: Translate): SafeHtml {
  const replies = channel.platform.replies;
  const shown = replies === 'none' ? parts.slice(0, 1) : parts;
  const handle = channel.profile === null ? '' : html`<span class="muted">@${channel.profile.replace(/^@/, '')}</span>`;
  const posts = shown.map(({ text, media }, index) => html`<div class="preview-post">
  ${channelAvatar(channel, 'preview-avatar')}
  <div><div class="preview-who"><strong>${channel.name}</strong>${handle}
  ${index > 0 ? html`<span class="muted">${replyLabel(replies, index, t)}</span>` : ''}</div>
  <p class="preview-text">${text.trim() === '' ? html`<span class="muted">${t('compose.previewEmpty')}</span>`
    : previewText(text)}</p>
  ${mediaGrid(media, t)}</div>
</div>`);
  return html`<div class="preview family-${channel.provider}" role="group"
 aria-label="${t('compose.previewOn', { platform: channel.platform.displayName })}">
${posts}</div>`;
}
