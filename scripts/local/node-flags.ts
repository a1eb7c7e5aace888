/**
 * V8 flags the api runs with. A 2 MB young generation keeps a streaming upload's garbage (one
 * promise and buffer view per chunk) from piling up before the scavenger runs: measured on a
 * 500 MiB upload, peak RSS fell from 250 MB to 164 MB and throughput rose (scripts/bench).
 * docker-compose.yml and the Dockerfile pass the same flag.
 */
export const apiNodeFlags: readonly string[] = ['--max-semi-space-size=2'];
