/**
 * Where a problem's path (`posts.2.value.1.content`) points in a POST /posts body: which channel
 * post (`posts[]` entry) and which of its parts. Paths of the request as a whole (`date`) and of
 * the channel post as a whole (`posts.2.settings.title`, `posts.2.value`) have no part.
 */
const channelPostPath = /^posts\.(\d+)(?:\.|$)/;
const partPath = /^posts\.\d+\.value\.(\d+)(?:\.|$)/;

export function channelPostIndexOf(path: string): number | null {
  const match = channelPostPath.exec(path);
  return match?.[1] === undefined ? null : Number(match[1]);
}

export function partIndexOf(path: string): number | null {
  const match = partPath.exec(path);
  return match?.[1] === undefined ? null : Number(match[1]);
}
