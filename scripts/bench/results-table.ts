/** One line of `npm run bench`'s table; `pass` is null for figures shown for context only. */
export interface BenchRow {
  measure: string;
  databaseSize: string;
  sps: string;
  baseline: string;
  ratio: string;
  target: string;
  pass: boolean | null;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** Figures as the table shows them: whole numbers from 100 up, one decimal below. */
export function figure(value: number, unit = ''): string {
  if (!Number.isFinite(value)) return '-';
  const text = Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(1);
  return unit === '' ? text : `${text} ${unit}`;
}

export const ratioText = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-');

const columns: { title: string; value: (row: BenchRow) => string }[] = [
  { title: 'measure', value: (row) => row.measure },
  { title: 'database size', value: (row) => row.databaseSize },
  { title: 'SPS', value: (row) => row.sps },
  { title: 'baseline', value: (row) => row.baseline },
  { title: 'ratio', value: (row) => row.ratio },
  { title: 'target', value: (row) => row.target },
  { title: 'pass', value: (row) => (row.pass === null ? '-' : row.pass ? 'yes' : 'NO') },
];

/** A Markdown table with aligned columns, readable in a terminal and pasteable into an issue. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = columns.map((column) => column.title);
  const body = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((_, index) => Math.max(...[header, ...body].map((cells) => (cells[index] ?? '').length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}
