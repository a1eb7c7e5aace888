import type { Context } from 'koa';
import { escapeHtml, SafeHtml, toMarkup, type HtmlValue } from '../html.ts';
import { localeOf, type DashboardLocale } from './locale.ts';
import { de } from './messages-de.ts';
import { en, type Catalog, type MessageKey } from './messages-en.ts';

const catalogs: Record<DashboardLocale, Catalog> = { en, de };

/** The names inside `{…}` of one English message: what a caller must fill in. */
type PlaceholdersOf<Text extends string> = Text extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PlaceholdersOf<Rest>
  : never;

export type Placeholders<Key extends MessageKey> = PlaceholdersOf<(typeof en)[Key]>;

/** A message with no placeholders: what a table of keys (navigation, titles) may hold. */
export type PlainKey = { [Key in MessageKey]: [Placeholders<Key>] extends [never] ? Key : never }[MessageKey];

/** No second argument for a message without placeholders; exactly its placeholders otherwise. */
type Fill<Key extends MessageKey, Value> = [Placeholders<Key>] extends [never]
  ? []
  : [values: Readonly<Record<Placeholders<Key>, Value>>];

/** Keys written as `<base>.one` and `<base>.other`: a message that depends on a number. */
export type CountedKey = {
  [Key in MessageKey]: Key extends `${infer Base}.one` ? (`${Base}.other` extends MessageKey ? Base : never) : never
}[MessageKey];

type CountFill<Base extends CountedKey> = [Exclude<Placeholders<`${Base}.other` & MessageKey>, 'count'>] extends [never]
  ? []
  : [values: Readonly<Record<Exclude<Placeholders<`${Base}.other` & MessageKey>, 'count'>, string | number>>];

/** The dashboard's words in one language: every string a page shows comes through here. */
export interface Translate {
  <Key extends MessageKey>(key: Key, ...values: Fill<Key, string | number>): string;
  readonly locale: DashboardLocale;
  /** The `.one` or `.other` form for `count` by the language's plural rules, `{count}` filled in. */
  count<Base extends CountedKey>(base: Base, count: number, ...values: CountFill<Base>): string;
  /**
   * A message whose placeholders take markup (a link, a <code>): the message's own text is
   * escaped, each value as `html` would interpolate it.
   */
  markup<Key extends MessageKey>(key: Key, ...values: Fill<Key, HtmlValue>): SafeHtml;
  /** The message with its `{placeholders}` unfilled, for a page's script to fill (layout's page words). */
  raw(key: MessageKey): string;
}

const placeholder = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

function fill(template: string, values: Readonly<Record<string, unknown>>, show: (value: unknown) => string,
  plain: (text: string) => string): string {
  let output = '';
  let last = 0;
  for (const match of template.matchAll(placeholder)) {
    const name = match[1] ?? '';
    // A catalog test holds each translation to its English placeholders, so a miss is our bug.
    if (!(name in values)) throw new Error(`dashboard message needs a value for {${name}}`);
    output += plain(template.slice(last, match.index)) + show(values[name]);
    last = match.index + match[0].length;
  }
  return output + plain(template.slice(last));
}

function translatorFor(locale: DashboardLocale): Translate {
  const catalog = catalogs[locale];
  const plural = new Intl.PluralRules(locale);
  const message = (key: string): string => catalog[key as MessageKey];
  const text = (key: string, values: Readonly<Record<string, unknown>> = {}): string =>
    fill(message(key), values, String, (part) => part);
  const translate = ((key: MessageKey, ...values: [Readonly<Record<string, unknown>>?]) =>
    text(key, values[0])) as Translate;
  return Object.assign(translate, {
    locale,
    count: (base: string, count: number, ...values: [Readonly<Record<string, unknown>>?]) => {
      const form = plural.select(count) === 'one' ? 'one' : 'other';
      return text(`${base}.${form}`, { ...values[0], count: count.toLocaleString(locale) });
    },
    markup: (key: MessageKey, ...values: [Readonly<Record<string, HtmlValue>>?]) =>
      new SafeHtml(fill(message(key), values[0] ?? {}, (value) => toMarkup(value as HtmlValue), escapeHtml)),
    raw: message,
  });
}

const translators = new Map<DashboardLocale, Translate>();

/** The words for one language (made once per language). */
export function wordsIn(locale: DashboardLocale): Translate {
  let translate = translators.get(locale);
  if (translate === undefined) {
    translate = translatorFor(locale);
    translators.set(locale, translate);
  }
  return translate;
}

/** The words of the language the request's browser asked for (api/dashboard/i18n/locale.ts). */
export function words(ctx: Pick<Context, 'acceptsLanguages'>): Translate {
  return wordsIn(localeOf(ctx));
}

/**
 * A stored value (a state, a method) as a reader names it, from a table of its known values'
 * labels; a value the table does not know yet is shown as stored rather than hidden.
 */
export function labelOf<Value extends string>(t: Translate, labels: Readonly<Record<Value, PlainKey>>,
  value: string): string {
  const key = (labels as Readonly<Partial<Record<string, PlainKey>>>)[value];
  return key === undefined ? value : t(key);
}
