import { escapeHtml } from '../../shared/escape-html.ts';
/**
 * HTML built only through the `html` tag: every interpolated value is escaped unless it is
 * itself the output of `html`, so a page cannot forget to escape a user's value.
 */
export class SafeHtml {
  readonly markup: string;

  constructor(markup: string) {
    this.markup = markup;
  }

  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

export { escapeHtml };

/** The markup of one value, escaped unless it is `html`'s own output (as interpolation does). */
export function toMarkup(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  // Conditionals like `${flag && html`...`}` leave false behind; it must render as nothing.
  if (value === null || value === undefined || value === false || value === true) return '';
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(toMarkup).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += toMarkup(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(markup);
}

/**
 * A URL that may go in an href or src: only http(s) survives, so a stored `javascript:` link
 * renders as nothing rather than as something clickable.
 */
export function webUrl(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
