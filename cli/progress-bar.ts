import { terminal, type OutputStream } from './terminal.ts';

/** Files over this size show upload progress. */
export const progressThresholdBytes = 5 * 1024 * 1024;

const barWidth = 30;

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What follows the percentage: the amount done of the total (bytes unless the bar counts something else). */
export type DescribeAmount = (done: number, total: number) => string;

const bytesSent: DescribeAmount = (done, total) => `${megabytes(done)} / ${megabytes(total)}`;

export interface ProgressBar {
  update(sentBytes: number): void;
  finish(): void;
}

/**
 * A bar on stderr. On a terminal it redraws one line; elsewhere (logs, CI, tests) it prints a
 * line at every tenth so the output stays short.
 */
export function progressBar(
  label: string,
  totalBytes: number,
  stream: OutputStream = terminal().stderr,
  describe: DescribeAmount = bytesSent,
): ProgressBar {
  const interactive = stream.isTTY;
  let lastTenth = -1;
  let lastPercent = -1;
  let sent = 0;

  function render(): string {
    const fraction = totalBytes === 0 ? 1 : Math.min(1, sent / totalBytes);
    const filled = Math.round(fraction * barWidth);
    const percent = Math.floor(fraction * 100);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}`;
    return `${label} [${bar}] ${String(percent).padStart(3)}% ${describe(sent, totalBytes)}`;
  }

  return {
    update(sentBytes) {
      sent = sentBytes;
      const percent = totalBytes === 0 ? 100 : Math.floor((Math.min(sent, totalBytes) / totalBytes) * 100);
      if (interactive) {
        if (percent === lastPercent) return;
        lastPercent = percent;
        stream.write(`\r${render()}`);
        return;
      }
      const tenth = Math.floor(percent / 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stream.write(`${render()}\n`);
    },
    finish() {
      if (interactive) stream.write('\n');
    },
  };
}
