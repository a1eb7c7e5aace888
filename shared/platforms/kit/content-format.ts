import { marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

/**
 * Posts are written in Markdown (plain text is Markdown too); each blogging or newsletter platform
 * gets the format it publishes. One converter (marked, GitHub-flavoured) and one sanitizer
 * (sanitize-html) for all of them, so no platform gets hand-made string replacement.
 */

/** What a published article may contain: text structure, links, images, code, tables. No scripts, styles or frames. */
const articleHtml: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 's',
    'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'sup', 'sub', 'figure', 'figcaption',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    code: ['class'],
    th: ['align'],
    td: ['align'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  // Only the language marker marked puts on fenced code (`language-ts`) survives on <code>.
  allowedClasses: { code: ['language-*'] },
  transformTags: {
    // A link in a post leaves the publisher's site: it must not reach back through window.opener.
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }),
  },
};

/** The post as safe HTML: Markdown rendered (GFM: tables, strikethrough, autolinks), then sanitized. */
export function markdownToHtml(markdown: string): string {
  // marked reads autolinks (`<https://...>`) and raw HTML itself; its output is what gets sanitized.
  const rendered = marked.parse(unixLines(markdown), { async: false, gfm: true, breaks: false });
  return sanitizeHtml(rendered, articleHtml).trim();
}

/**
 * The post as Markdown for platforms that render Markdown themselves (Dev.to, Hashnode, Medium):
 * the text as written, line endings made Unix and HTML written inline sanitized like the HTML
 * output, so a post cannot smuggle a script or an iframe through a Markdown platform either.
 */
export function normalizeMarkdown(markdown: string): string {
  const unix = unixLines(markdown);
  if (!/<[a-zA-Z!/]/.test(unix)) return unix;
  // Markdown's autolinks look like tags to the sanitizer: set them aside, sanitize, put them back.
  const autolinks: string[] = [];
  const guarded = unix.replace(autolink, (link) => `\uE000${String(autolinks.push(link) - 1)}\uE000`);
  const cleaned = sanitizeHtml(guarded, { ...articleHtml, parser: { decodeEntities: false } });
  return cleaned.replace(/\uE000(\d+)\uE000/g, (_match, index: string) => autolinks[Number(index)] ?? '');
}

/** `<https://example.com>` and `<mailto:a@b.c>`: a URL between angle brackets, no spaces. */
const autolink = /<(?:https?:\/\/|mailto:)[^\s<>]+>/g;

function unixLines(text: string): string {
  return text.replace(/\r\n?/g, '\n').trim();
}

/** The post as plain text (subjects, summaries, text-only e-mail parts): Markdown rendered, every tag dropped. */
export function markdownToPlainText(markdown: string): string {
  const html = marked.parse(unixLines(markdown), { async: false, gfm: true, breaks: false });
  // Paragraphs and headings end in a blank line; list items and rows already end in a line break.
  const blocksAsLines = html.replace(/<\/(p|h[1-6]|blockquote|pre)>/g, '$&\n').replace(/<br\s*\/?>/g, '\n');
  const text = sanitizeHtml(blocksAsLines, { allowedTags: [], allowedAttributes: {} });
  return decodeEntities(text).replace(/\n{3,}/g, '\n\n').trim();
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': '\'' };

/** sanitize-html leaves text HTML-escaped; plain text wants the characters back. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity] ?? entity);
}

/** An image a Markdown platform fetches by its address, with the text readers without it get. */
export interface LinkedImage {
  url: string;
  alt: string | null;
}

const escapedInAddress: Record<string, string> = { '(': '%28', ')': '%29', ' ': '%20' };

/**
 * The post's Markdown followed by its images, each a Markdown image of its own paragraph, for
 * platforms that take images only as addresses in the text (Dev.to, Hashnode, Medium fetch them).
 * Alt text loses brackets and line breaks, and the address its spaces and parentheses, which
 * would end the image early.
 */
export function withMarkdownImages(markdown: string, images: readonly LinkedImage[]): string {
  const lines = images.map(({ url, alt }) => {
    const text = (alt ?? '').replace(/[[\]\\]/g, '').replace(/\s+/g, ' ').trim();
    const address = url.replace(/[\s()]/g, (found) => escapedInAddress[found] ?? encodeURIComponent(found));
    return `![${text}](${address})`;
  });
  return [normalizeMarkdown(markdown), ...lines].filter((piece) => piece !== '').join('\n\n');
}
