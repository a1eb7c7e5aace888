import { describe, expect, it } from 'vitest';
import { markdownToHtml, markdownToPlainText, normalizeMarkdown, withMarkdownImages } from './content-format.ts';

describe('content formats for blogging and newsletter platforms', () => {
  it('renders Markdown as HTML: headings, emphasis, lists, code with its language, tables, links', () => {
    const html = markdownToHtml([
      '# Launch', '', 'We **shipped** _it_.', '', '- one', '- two', '',
      '```ts', 'const a = 1 < 2;', '```', '', '| a | b |', '|---|---|', '| 1 | 2 |', '',
      'See [the notes](https://example.com/notes).',
    ].join('\n'));
    expect(html).toContain('<h1>Launch</h1>');
    expect(html).toContain('<strong>shipped</strong> <em>it</em>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<code class="language-ts">const a = 1 &lt; 2;');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<a href="https://example.com/notes" rel="noopener noreferrer">the notes</a>');
  });

  it('treats plain text as paragraphs, escaping what HTML would read as markup', () => {
    expect(markdownToHtml('Fish & chips\r\n\r\n5 < 6')).toBe('<p>Fish &amp; chips</p>\n<p>5 &lt; 6</p>');
  });

  it('drops scripts, event handlers, frames and javascript: links written into a post', () => {
    const html = markdownToHtml([
      'Hi <script>alert(1)</script>', '', '<img src="https://e.com/a.png" onerror="alert(1)">', '',
      '<iframe src="https://e.com"></iframe>', '', '[x](javascript:alert(1))',
    ].join('\n'));
    expect(html).not.toMatch(/script|onerror|iframe|javascript:/);
    expect(html).toContain('<img src="https://e.com/a.png" />');
  });

  it('keeps Markdown as written for Markdown platforms, sanitizing only inline HTML', () => {
    expect(normalizeMarkdown('# Title\r\n\r\n**bold** & `code`  \n')).toBe('# Title\n\n**bold** & `code`');
    const cleaned = normalizeMarkdown('Text <script>x()</script> and <b onclick="y()">b</b>');
    expect(cleaned).toBe('Text  and b');
  });

  it('keeps Markdown autolinks in every output', () => {
    const text = 'Docs: <https://example.com/docs?a=1&b=2> or <mailto:team@example.com>.';
    const html = markdownToHtml(text);
    expect(html).toContain('<a href="https://example.com/docs?a=1&amp;b=2" rel="noopener noreferrer">');
    expect(html).toContain('<a href="mailto:team@example.com" rel="noopener noreferrer">');
    expect(normalizeMarkdown(`${text} <script>x()</script>`)).toBe(`${text} `);
    expect(markdownToPlainText(text)).toBe('Docs: https://example.com/docs?a=1&b=2 or mailto:team@example.com.');
  });

  it('gives the text without markup for subjects and summaries', () => {
    expect(markdownToPlainText('# Big news\n\nWe **shipped** it & [read](https://e.com).\n\n- a\n- b'))
      .toBe('Big news\n\nWe shipped it & read.\n\na\nb');
  });

  it('appends images as Markdown images that cannot end early or break out of their line', () => {
    const text = withMarkdownImages('Body <script>x</script>\r\n', [
      { url: 'https://cdn.example/a (1).png', alt: 'A [nice]\nchart' },
      { url: 'https://cdn.example/b.png', alt: null },
    ]);
    expect(text).toBe(
      'Body \n\n![A nice chart](https://cdn.example/a%20%281%29.png)\n\n![](https://cdn.example/b.png)',
    );
    expect(markdownToHtml(text)).toContain('<img src="https://cdn.example/a%20%281%29.png" alt="A nice chart" />');
    expect(withMarkdownImages('Only words', [])).toBe('Only words');
  });
});
