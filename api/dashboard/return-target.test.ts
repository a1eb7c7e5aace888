import { describe, expect, it } from 'vitest';
import { loginPath, safeReturnPath } from './return-target.ts';

describe('safeReturnPath', () => {
  it('keeps local paths with their query', () => {
    expect(safeReturnPath('/oauth/authorize?client_id=pca_1&response_type=code&state=a%20b')).toBe('/oauth/authorize?client_id=pca_1&response_type=code&state=a%20b');
    expect(safeReturnPath('/channels')).toBe('/channels');
  });

  it('refuses everything that could leave the site', () => {
    const attempts = ['', 'https://evil.example', 'http:/evil.example', '//evil.example', '///evil.example', '/\\evil.example', '\\/evil.example', '/\t/evil.example', '/\n/evil.example', 'javascript:alert(1)', '/.//evil.example', '/a/..//evil.example', 'evil.example/x', `/${'a'.repeat(5000)}`];
    for (const attempt of attempts) expect({ attempt, path: safeReturnPath(attempt) }).toEqual({ attempt, path: null });
  });
});

describe('loginPath', () => {
  it('carries the return target, and leaves out the default landing page', () => {
    expect(loginPath('/posts?from=2025-01-01')).toBe('/login?return_to=%2Fposts%3Ffrom%3D2025-01-01');
    expect(loginPath('/settings')).toBe('/login');
    expect(loginPath(null, '/signup')).toBe('/signup');
  });
});
