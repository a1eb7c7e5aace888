import { createReadStream } from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { createRequire } from 'node:module';
import type { AppState } from '../../context.ts';
import { notFound } from '../../../shared/errors.ts';
import { publicApiPrefix } from './openapi-document.ts';

/** Files of the locally installed swagger-ui-dist the page needs; nothing comes from a CDN. */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>SPS public API reference</title>
  <link rel="stylesheet" href="${publicApiPrefix}/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="${publicApiPrefix}/docs/assets/swagger-ui-bundle.js"></script>
  <script src="${publicApiPrefix}/docs/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({ url: '${publicApiPrefix}/openapi.json', dom_id: '#reference', deepLinking: true });`;

/** The OpenAPI document and a readable reference page: public, no credential needed. */
export function docsRouter(document: Record<string, unknown>): Router<AppState> {
  const router = new Router<AppState>({ prefix: publicApiPrefix });
  // Only the folder is needed: importing swagger-ui-dist itself would load its 1 MB bundles (about 28 MB of memory).
  const assetRoot = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = init;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const file = ctx.params.file ?? '';
    const type = assets[file];
    // Only the listed files: the name never reaches the file system unchecked.
    if (type === undefined) throw notFound(`asset ${file}`);
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = createReadStream(path.join(assetRoot, file));
  });
  return router;
}
