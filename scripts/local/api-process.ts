/**
 * How the api process is started, by `npm start`, the benchmarks, the Dockerfile and
 * docker-compose.yml alike. Both settings bound what a streaming upload leaves resident; each
 * measured with `npm run bench:upload` (1 GiB, peak RSS of the api, two runs each):
 * - a 1 MB young generation: a chunk's garbage (a promise and a buffer view per chunk) is
 *   collected before it piles up. 2 MB gave 207 to 210 MB, 1 MB 190 to 191 MB, with the same
 *   `POST /posts` and upload throughput (250 MB and slower with V8's default, on 500 MiB);
 * - two malloc arenas: glibc gives each thread that frees memory (libuv's file-write threads
 *   among them) an arena of its own, and keeps freed chunks there. Both together: 182 to 185 MB.
 */
export const apiNodeFlags: readonly string[] = ['--max-semi-space-size=1'];

/** Environment the api process starts with, on top of its configuration. */
export const apiProcessEnvironment: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
