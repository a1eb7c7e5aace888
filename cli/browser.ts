import { spawn } from 'node:child_process';
import { terminal } from './terminal.ts';
import { CliError } from './cli-error.ts';

/**
 * The address as a URL the browser may be sent to: http or https only. The address comes from
 * the auth server, so anything else (file:, javascript:, an OS protocol handler such as
 * ms-settings:) is refused rather than handed to the system's opener.
 */
export function browserUrl(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new CliError(`the auth server sent a verification address that is not a URL: ${JSON.stringify(address)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const refused = JSON.stringify(address);
    throw new CliError(`the auth server sent a verification address that is not http(s), refused: ${refused}`);
  }
  return url;
}

/**
 * The platform's own "open this URL" program and its arguments. No shell on any platform: the
 * URL is one argument of a program that takes it as such, so no character in it is special.
 */
export function openerCommand(url: URL, platform: NodeJS.Platform): { command: string; args: string[] } {
  // The serialised URL has no spaces or quotes (they are percent-encoded), so Windows passes it on untouched.
  const address = url.toString();
  if (platform === 'darwin') return { command: 'open', args: [address] };
  // url.dll's FileProtocolHandler is what Windows itself runs for a link; cmd's `start` would parse & and ^.
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', address] };
  return { command: 'xdg-open', args: [address] };
}

/**
 * Starts the browser on `address` (refused with a CliError unless it is http(s)). Resolves to
 * null when the opener started, or to the reason it did not; `onFailedLater` hears about an
 * opener that started and then exited with an error.
 */
export function openInBrowser(
  address: string,
  onFailedLater: (reason: string) => void,
  platform: NodeJS.Platform = process.platform,
): Promise<string | null> {
  const { command, args } = openerCommand(browserUrl(address), platform);
  return new Promise((resolve) => {
    // The command's environment: its PATH finds the opener, as a shell would.
    const options = { env: terminal().env, stdio: 'ignore', detached: true, shell: false, windowsHide: true } as const;
    const child = spawn(command, args, options);
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
