# One image for the api and the workers; docker-compose.yml picks the entry point.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY api ./api
COPY workers ./workers
COPY shared ./shared
USER node
# Node 24 runs the TypeScript sources directly (type stripping): no build step, no dist/ to drift.
CMD ["node", "api/main.ts"]
