/** One page of a Pinterest list: its items and the bookmark of the next page (null or absent at the end). */
export interface PinterestPage<T> {
  items: T[];
  bookmark?: string | null;
}

/** Past this many pages a list is taken as endless (a bookmark that never ends) rather than read on. */
const maxPages = 40;

/** Every item of a list Pinterest pages with `bookmark`, following it until it runs out. */
export async function everyPage<T>(readPage: (bookmark: string | null) => Promise<PinterestPage<T>>): Promise<T[]> {
  const items: T[] = [];
  let bookmark: string | null = null;
  for (let page = 0; page < maxPages; page += 1) {
    const read: PinterestPage<T> = await readPage(bookmark);
    items.push(...read.items);
    bookmark = read.bookmark ?? null;
    if (bookmark === null || bookmark === '') break;
  }
  return items;
}
