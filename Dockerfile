# One image for the api, the workers and the auth server; docker-compose.yml picks the entry point.
FROM node:24-bookworm-slim
# ffprobe and ffmpeg inspect media and make poster frames in the media worker; the video worker
# also narrates with espeak-ng and draws captions in DejaVu Sans.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg espeak-ng fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY api ./api
COPY workers ./workers
COPY shared ./shared
COPY auth-server ./auth-server
COPY scripts ./scripts
USER node
# Node 24 runs the TypeScript sources directly (type stripping): no build step, no dist/ to drift.
# The api starts as scripts/local/api-process.ts says (young generation, malloc arenas): see there why.
# The arena setting is given to the api alone, the process it was measured for.
CMD ["env", "MALLOC_ARENA_MAX=2", "node", "--max-semi-space-size=1", "api/main.ts"]
