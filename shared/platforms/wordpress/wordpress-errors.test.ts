import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { classifyWordpressRefusal, wordpressErrorMessage } from './wordpress-errors.ts';
import { mediaAfterText, uploadFileName } from './wordpress-media.ts';

/**
 * The refusals a test site cannot be made to give (newer WordPress's sign-in codes, a site with
 * application passwords turned off, a failed disk write), classified on WordPress's codes.
 */
const refusal = (code: string, status: number) => ({ code, message: `${code} message`, data: { status } });

describe('WordPress refusals', () => {
  it.each([
    ['incorrect_password', 401, 'disconnected'],
    ['invalid_username', 401, 'disconnected'],
    ['application_passwords_disabled', 501, 'disconnected'],
    ['rest_cannot_create', 401, 'disconnected'],
    ['rest_cannot_create', 403, 'permanent'],
    ['rest_upload_sideload_error', 500, 'permanent'],
    ['rest_upload_unknown_error', 500, 'retryable'],
    ['db_insert_error', 500, 'retryable'],
    ['rest_invalid_param', 400, 'permanent'],
    ['too_many_requests', 429, 'retryable'],
  ] as const)('%s with %i is %s', (code, status, kind) => {
    expect(classifyWordpressRefusal(status, refusal(code, status))).toBe(kind);
  });

  it('leaves a body that is not WordPress\'s to the HTTP status', () => {
    expect(classifyWordpressRefusal(503, '<html>Briefly unavailable</html>')).toBeUndefined();
  });

  it('keeps WordPress\'s words, with the likely cause after a 401', () => {
    expect(wordpressErrorMessage(refusal('incorrect_password', 401))).toBe('incorrect_password message');
    expect(wordpressErrorMessage(refusal('rest_cannot_create', 403))).toBe('rest_cannot_create message');
    expect(wordpressErrorMessage(refusal('rest_cannot_create', 401)))
      .toMatch(/^rest_cannot_create message \(WordPress signed no one in .* may be wrong or revoked/);
  });
});

const media = (fileName: string, mimeType: string, alt: string | null = null): PublishMedia => ({
  kind: mimeType.startsWith('video/') ? 'video' : 'image', mimeType, size: 1, fileName, alt, url: '',
  open: () => Promise.resolve(Readable.from([Buffer.alloc(1)])),
});

describe('WordPress media names and embeds', () => {
  it('names the file the way Content-Disposition carries it, with the type\'s extension when it has none', () => {
    expect(uploadFileName(media('Été à Paris (1).JPG', 'image/jpeg'))).toBe('Ete-a-Paris-1.jpg');
    expect(uploadFileName(media('upload', 'video/mp4'))).toBe('upload.mp4');
    expect(uploadFileName(media('"";.png', 'image/png'))).toBe('media.png');
  });

  it('shows images as Markdown images and videos as [video] shortcodes', () => {
    const shown = mediaAfterText([
      { media: media('a.png', 'image/png', 'A [bracketed]\nalt'), id: 1, url: 'https://blog.example/a (1).png' },
      { media: media('b.mp4', 'video/mp4'), id: 2, url: 'https://blog.example/b"].mp4' },
    ]);
    expect(shown.markdown).toBe('![A bracketed alt](https://blog.example/a%20%281%29.png)');
    expect(shown.shortcodes).toBe('[video src="https://blog.example/b%22%5D.mp4"]');
  });
});
