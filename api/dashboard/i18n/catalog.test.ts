import { describe, expect, it } from 'vitest';
import { dashboardLocales } from './locale.ts';
import { de } from './messages-de.ts';
import { en } from './messages-en.ts';
import { wordsIn } from './translate.ts';
import { dashboardStrayText, strayTextIn } from './ui-text-scan.ts';

const placeholders = (text: string): string[] => [...text.matchAll(/\{([A-Za-z][A-Za-z0-9]*)\}/g)]
  .map((match) => match[1] ?? '').sort();

describe('the dashboard catalogs', () => {
  it('give every English message a German one with the same placeholders', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en)) {
      const german = de[key as keyof typeof en];
      expect(german.trim(), key).not.toBe('');
      expect(placeholders(german), key).toEqual(placeholders(text));
    }
  });

  it('pair every counted message: one form and other form, both counting', () => {
    for (const key of Object.keys(en).filter((name) => name.endsWith('.one'))) {
      const other = `${key.slice(0, -'.one'.length)}.other`;
      expect(Object.keys(en), key).toContain(other);
    }
  });

  it('list a catalog for every language the dashboard offers', () => {
    expect(dashboardLocales).toEqual(['en', 'de']);
  });
});

describe('the translator', () => {
  it('fills placeholders and escapes only the message when values are markup', () => {
    const t = wordsIn('de');
    expect(t('layout.titleSuffix', { title: 'Kanäle' })).toBe('Kanäle · SPS');
    expect(t.markup('layout.titleSuffix', { title: '<b>' }).markup).toBe('&lt;b&gt; · SPS');
    expect(wordsIn('en')('nav.channels')).toBe('Channels');
    expect(t('nav.channels')).toBe('Kanäle');
  });
});

describe('text written outside the catalogs', () => {
  it('is found in markup, in attributes a person hears and in plain strings', () => {
    const source = [
      'const a = html`<p>Delivery log</p><button aria-label="Close it">${x}</button>`;',
      'const b = { title: "Webhooks are here" };',
      'const c = html` selected`;',
      'throw new Error("page needs the CSRF middleware");',
      'const d = t("nav.compose");',
      'const e = html`<code>sps login</code>`;',
    ].join('\n');
    expect(strayTextIn('page.ts', source).map((stray) => stray.text))
      .toEqual(['Close it', 'Delivery log', 'Webhooks are here']);
    expect(strayTextIn('island.js', "'use strict';\nstatus.textContent = 'Not moved: ' + why;")
      .map((stray) => stray.text)).toEqual(['Not moved:']);
  });

  it('is nowhere in the dashboard: every string a page shows comes from the catalog', () => {
    const strays = dashboardStrayText(new URL('../../..', import.meta.url).pathname)
      .map((stray) => `${stray.file}:${stray.line} ${JSON.stringify(stray.text)}`);
    expect(strays).toEqual([]);
  });
});
