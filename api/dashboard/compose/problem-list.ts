import { html, type SafeHtml } from '../html.ts';

/** A list of problems under the field they concern; an empty list still holds the place for live updates. */
export function problemList(id: string, problems: readonly string[], oob = false): SafeHtml {
  return html`<ul class="problems" id="${id}"${oob ? html` hx-swap-oob="true"` : ''}>${problems.map((problem) =>
    html`<li>${problem}</li>`)}</ul>`;
}
