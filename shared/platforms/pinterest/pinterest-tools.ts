import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type PinterestApi } from './pinterest-api.ts';
import { everyPage } from './pinterest-pages.ts';

/** The tools the definition declares (design-blogging-business.md 1.8). */

const board = z.object({
  id: z.string().min(1),
  name: z.string(),
  privacy: z.string().optional(),
  description: z.string().nullable().optional(),
});
const boardsPage = z.object({ items: z.array(board), bookmark: z.string().nullable().optional() });
const section = z.object({ id: z.string().min(1), name: z.string() });
const sectionsPage = z.object({ items: z.array(section), bookmark: z.string().nullable().optional() });

const boardId = z.string().regex(/^\d+$/, 'board_id must be a numeric board id');
const sectionsData = z.object({ board_id: boardId.optional() });
const newBoard = z.object({
  name: z.string().trim().min(1, 'name (the board\'s name) is required').max(180),
  description: z.string().max(500).optional(),
  privacy: z.enum(['PUBLIC', 'PROTECTED', 'SECRET'], 'privacy must be PUBLIC, PROTECTED or SECRET').optional(),
});

function parsed<T>(schema: z.ZodType<T>, data: Record<string, unknown>): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const message = result.error.issues.map((issue) => issue.message).join('; ');
  throw new PlatformError({ kind: 'permanent', provider, message });
}

const shown = (item: z.infer<typeof board>) => ({
  id: item.id,
  name: item.name,
  privacy: item.privacy ?? null,
  description: item.description ?? null,
});

/** Most a page holds, so long lists take few calls. */
const pageSize = '250';

function paged(bookmark: string | null): Record<string, string> {
  return { page_size: pageSize, ...(bookmark === null ? {} : { bookmark }) };
}

export function pinterestTools(
  forChannel: (channel: ChannelCredentials) => { api: PinterestApi; boardId: string },
): Record<string, ToolHandler> {
  return {
    async boards(channel) {
      const { api } = forChannel(channel);
      const items = await everyPage((bookmark) => (
        api({ method: 'GET', path: '/v5/boards', query: paged(bookmark) }, boardsPage, 'the boards')
      ));
      return items.map(shown);
    },

    /** The sections of the board named, or of the channel's own board. */
    async boardSections(channel, data) {
      const wanted = parsed(sectionsData, data);
      const { api, boardId: channelBoard } = forChannel(channel);
      const path = `/v5/boards/${encodeURIComponent(wanted.board_id ?? channelBoard)}/sections`;
      const items = await everyPage((bookmark) => (
        api({ method: 'GET', path, query: paged(bookmark) }, sectionsPage, 'the board\'s sections')
      ));
      return items.map(({ id, name }) => ({ id, name }));
    },

    async createBoard(channel, data) {
      const json = parsed(newBoard, data);
      const { api } = forChannel(channel);
      return shown(await api({ method: 'POST', path: '/v5/boards', json }, board, 'a board'));
    },
  };
}
