import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kitRoom } from './platform-families.ts';
import { familyProblems, roomImportProblems, type RoomFile } from './room-imports.ts';

const platformsFolder = import.meta.dirname;
const rooms = readdirSync(platformsFolder, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const hasModule = (room: string) => existsSync(path.join(platformsFolder, room, 'module.ts'));

function roomFiles(): RoomFile[] {
  return rooms.flatMap((room) =>
    readdirSync(path.join(platformsFolder, room), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => {
        const relative = `${room}/${name.split(path.sep).join('/')}`;
        return { path: relative, text: readFileSync(path.join(platformsFolder, relative), 'utf8') };
      }));
}

describe('room imports', () => {
  it('every room imports only the kit, its family room and itself', () => {
    expect(roomImportProblems(roomFiles())).toEqual([]);
  });

  it('the families name platform rooms, each in one family, and family rooms without a module', () => {
    const platformRooms = rooms.filter(hasModule);
    const otherRooms = rooms.filter((room) => !hasModule(room) && room !== kitRoom);
    expect(familyProblems(platformRooms, otherRooms)).toEqual([]);
  });

  it('names the file and the room it should not reach', () => {
    const files: RoomFile[] = [
      { path: 'threads/adapter.ts', text: "import { graphGet } from '../facebook/page-graph.ts';" },
      { path: 'gmb/connect.ts', text: "import { a } from '../google/google-oauth.ts';\nimport '../kit/x.ts';" },
      { path: 'meta/meta-graph.ts', text: "export { b } from '../threads/threads-graph.ts';" },
      { path: 'kit/oauth2.ts', text: "const c = await import('../x/connect.ts');" },
      { path: 'x/adapter.ts', text: "import { d } from '../meta/meta-graph.ts';\nimport '../../net/t.ts';" },
    ];
    expect(roomImportProblems(files)).toEqual([
      'threads/adapter.ts imports ../facebook/page-graph.ts: the room threads may import only itself and kit, meta',
      'meta/meta-graph.ts imports ../threads/threads-graph.ts: the room meta may import only itself and kit',
      'kit/oauth2.ts imports ../x/connect.ts: the room kit may import only itself',
      'x/adapter.ts imports ../meta/meta-graph.ts: the room x may import only itself and kit',
    ]);
  });

  it('lets a test compare the platforms of its family, and no others', () => {
    const files: RoomFile[] = [
      { path: 'instagram/definition.test.ts', text: "import { s } from '../instagram-standalone/definition.ts';" },
      { path: 'instagram/adapter.test.ts', text: "import { t } from '../threads/adapter.ts';" },
      { path: 'linkedin/adapter.test.ts', text: "import { u } from '../x/adapter.ts';" },
    ];
    expect(roomImportProblems(files)).toEqual([
      'linkedin/adapter.test.ts imports ../x/adapter.ts: '
        + 'the room linkedin may import only itself and kit, linkedin-family',
    ]);
  });
});
