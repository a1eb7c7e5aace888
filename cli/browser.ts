import { spawn } from 'node:child_process';

/** The platform's own "open this URL" command. */
function opener(url: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  // `start` is built into cmd; its first quoted argument is a window title, and `&` must be escaped.
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url.replaceAll('&', '^&')] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Starts the browser on `url`. Resolves to null when the opener started, or to the reason it did
 * not; `onFailedLater` hears about an opener that started and then exited with an error.
 */
export function openInBrowser(url: string, onFailedLater: (reason: string) => void): Promise<string | null> {
  const { command, args } = opener(url);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', (error) => { resolve(`${command}: ${error.message}`); });
    child.once('spawn', () => {
      child.once('exit', (code) => {
        if (code !== null && code !== 0) onFailedLater(`${command} exited with code ${code}`);
      });
      child.unref();
      resolve(null);
    });
  });
}
