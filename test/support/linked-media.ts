import type { PublishMedia } from '../../shared/platforms/kit/platform-adapter.ts';

/**
 * An attached image as an adapter of a platform that fetches images by address sees it (Dev.to,
 * Hashnode, Medium): its public URL is what is sent, so opening it is a test failure.
 */
export function linkedImage(url: string, alt: string | null = null, kind: 'image' | 'video' = 'image'): PublishMedia {
  return {
    kind,
    mimeType: kind === 'image' ? 'image/png' : 'video/mp4',
    size: 1234,
    fileName: url.split('/').at(-1) ?? 'file',
    alt,
    url,
    open: () => Promise.reject(new Error(`${url} is sent by address; the adapter must not read its bytes`)),
  };
}

