import type { AnalyticsSeries } from '../../shared/domain/analytics/analytics-series.ts';
import { html, type SafeHtml } from './html.ts';

const width = 160;
const height = 40;
const pad = 3;

/**
 * One counter's days as a small SVG line chart, drawn on the server (the dashboard has no front-end
 * framework): the latest value and the change beside it, every point's date and value in a
 * <title> for screen readers and hovering.
 */
export function analyticsChart(series: AnalyticsSeries): SafeHtml {
  const values = series.data.map((point) => point.total);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low === 0 ? 1 : high - low;
  const step = values.length < 2 ? 0 : (width - 2 * pad) / (values.length - 1);
  const points = values.map((value, index) => {
    const x = values.length < 2 ? width / 2 : pad + index * step;
    const y = height - pad - ((value - low) / span) * (height - 2 * pad);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  }).join(' ');
  const latest = values.at(-1) ?? 0;
  const change = series.percentageChange;
  const described = series.data.map((point) => `${point.date}: ${String(point.total)}`).join(', ');
  const summary = `${series.label}: ${described}`;
  const trend = change === 0 ? '' : html` <span class="muted">(${change > 0 ? '+' : ''}${change}%)</span>`;
  return html`<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"
  viewBox="0 0 ${width} ${height}" role="img" aria-label="${summary}"><title>${summary}</title>
  <polyline fill="none" stroke="currentColor" stroke-width="2" points="${points}"/></svg>
  <figcaption>${series.label} ${latest}${trend}</figcaption></figure>`;
}
