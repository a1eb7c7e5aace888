/**
 * The slashes that end a URL or path, for `.replace(trailingSlashes, '')`. The lookbehind makes
 * a match start only at the first slash of the run: `/\/+$/` tried every slash of a long run in
 * turn and went quadratic on a URL a user typed (eslint-plugin-regexp's no-super-linear-move).
 */
export const trailingSlashes = /(?<!\/)\/+$/;
