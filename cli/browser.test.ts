import { describe, expect, it } from 'vitest';
import { browserUrl, openerCommand, openInBrowser } from './browser.ts';
import { CliError } from './cli-error.ts';
import { verificationUrl } from './device-login.ts';

/** An address with every character cmd.exe would have treated specially. */
const tricky = 'https://auth.example.com/device/verify?code=ABCD-EFGH&next=%22x%22|calc^&y=(1)';

describe('opening the verification page', () => {
  it.each([
    'http://localhost:3111/device/verify',
    'https://auth.example.com/device/verify?code=ABCD-EFGH',
    'HTTPS://AUTH.EXAMPLE.COM/device/verify',
  ])('accepts the http(s) address %s', (address) => {
    expect(['http:', 'https:']).toContain(browserUrl(address).protocol);
  });

  it.each([
    ['file:///etc/passwd', /not http\(s\), refused/],
    ['javascript:alert(1)', /not http\(s\), refused/],
    ['ms-settings:privacy', /not http\(s\), refused/],
    ['smb://attacker.example/share/payload.exe', /not http\(s\), refused/],
    ['cmd /c calc', /not a URL/],
    ['/device/verify', /not a URL/],
    ['', /not a URL/],
  ])('refuses %s with a CliError', (address, message) => {
    expect(() => browserUrl(address)).toThrow(CliError);
    expect(() => browserUrl(address)).toThrow(message);
    expect(() => verificationUrl({ verification_uri: address, user_code: 'ABCD-EFGH' })).toThrow(message);
  });

  it('fills the user code into an accepted address', () => {
    expect(verificationUrl({ verification_uri: 'https://auth.example.com/device/verify', user_code: 'ABCD-EFGH' }))
      .toBe('https://auth.example.com/device/verify?code=ABCD-EFGH');
  });

  it('on Windows, runs url.dll\'s protocol handler with the URL as one argument: no cmd, nothing escaped', () => {
    const url = browserUrl(tricky);
    expect(openerCommand(url, 'win32'))
      .toEqual({ command: 'rundll32', args: ['url.dll,FileProtocolHandler', url.toString()] });
    // What reaches the handler is the parsed URL: quotes percent-encoded, no spaces, & and ^ as they were.
    expect(url.toString()).not.toMatch(/[\s"]/);
    expect(url.toString()).toContain('&next=%22x%22|calc^&y=(1)');
  });

  it.each([
    ['darwin', 'open'],
    ['linux', 'xdg-open'],
    ['freebsd', 'xdg-open'],
    ['openbsd', 'xdg-open'],
  ] as const)('on %s, runs %s with the URL as its only argument', (platform, command) => {
    const url = browserUrl(tricky);
    expect(openerCommand(url, platform)).toEqual({ command, args: [url.toString()] });
  });

  it('never names a shell, on any platform', () => {
    const platforms: NodeJS.Platform[] = [
      'aix', 'android', 'darwin', 'freebsd', 'haiku', 'linux', 'openbsd', 'sunos', 'win32', 'cygwin', 'netbsd',
    ];
    for (const platform of platforms) {
      const { command } = openerCommand(browserUrl(tricky), platform);
      expect(command).not.toMatch(/^(cmd|cmd\.exe|sh|bash|powershell|pwsh)$/i);
    }
  });

  it('refuses to open a non-http(s) address before starting any program', () => {
    const failures: string[] = [];
    const open = () => openInBrowser('file:///etc/passwd', (reason) => { failures.push(reason); }, 'linux');
    expect(open).toThrow(/not http\(s\), refused/);
    expect(failures).toEqual([]);
  });
});
