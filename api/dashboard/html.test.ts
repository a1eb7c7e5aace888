import { describe, expect, it } from 'vitest';
import { html, webUrl } from './html.ts';

describe('html', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<script>alert("x")</script> & 'quoted' \`tick\``;
    expect(html`<p title="${name}">${name}</p>`.markup).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39; &#96;tick&#96;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39; &#96;tick&#96;</p>',
    );
  });

  it('nests html values as they are, flattens lists and drops empty values', () => {
    const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.markup).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
  });
});

describe('webUrl', () => {
  it('lets only http(s) addresses into href and src', () => {
    expect(webUrl('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(webUrl('javascript:alert(1)')).toBeNull();
    expect(webUrl('data:text/html,<b>')).toBeNull();
    expect(webUrl('not a url')).toBeNull();
    expect(webUrl(null)).toBeNull();
  });
});
