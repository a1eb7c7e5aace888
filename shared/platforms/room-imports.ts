import path from 'node:path';
import { kitRoom, platformFamilies } from './platform-families.ts';

/** One source file of a room: its path below shared/platforms (`x/adapter.ts`) and its text. */
export interface RoomFile {
  path: string;
  text: string;
}

// Static imports and re-exports (`from '…'`), side-effect imports and dynamic import().
const importSpecifier = /(?:\bfrom|\bimport\s*\(|\bimport)\s*(['"])([^'"]+)\1/g;

function familyOf(room: string): string | undefined {
  return Object.entries(platformFamilies).find(([, members]) => members.includes(room))?.[0];
}

/**
 * The rooms a room may import besides itself. The kit imports no room; a family room only the
 * kit; a platform the kit and its family room. A platform's tests may also import the other
 * platforms of its family, to check the behaviour they share through each of them.
 */
function allowedRooms(room: string, isTest: boolean): ReadonlySet<string> {
  if (room === kitRoom) return new Set();
  if (room in platformFamilies) return new Set([kitRoom]);
  const family = familyOf(room);
  if (family === undefined) return new Set([kitRoom]);
  const siblings = isTest ? platformFamilies[family] ?? [] : [];
  return new Set([kitRoom, family, ...siblings]);
}

/** The room a path below shared/platforms lies in; undefined for the files beside the rooms. */
function roomOf(relativePath: string): string | undefined {
  const parts = relativePath.split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

/**
 * Every import of a room that reaches into a room it may not, one sentence each. Only relative
 * specifiers are read: the rooms reach each other by `../<room>/`, and packages are no room.
 */
export function roomImportProblems(files: readonly RoomFile[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const room = roomOf(file.path);
    if (room === undefined) continue;
    const allowed = allowedRooms(room, file.path.endsWith('.test.ts'));
    for (const match of file.text.matchAll(importSpecifier)) {
      const specifier = match[2] ?? '';
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), specifier));
      if (target.startsWith('../')) continue;
      const targetRoom = roomOf(target);
      if (targetRoom === undefined || targetRoom === room || allowed.has(targetRoom)) continue;
      problems.push(`${file.path} imports ${specifier}: the room ${room} may import only ${allowedWording(room)}`);
    }
  }
  return problems;
}

function allowedWording(room: string): string {
  const others = [...allowedRooms(room, false)];
  return others.length === 0 ? 'itself' : `itself and ${others.join(', ')}`;
}

/** What is wrong with the declared families themselves, against the rooms that exist. */
export function familyProblems(platformRooms: readonly string[], otherRooms: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [family, members] of Object.entries(platformFamilies)) {
    if (!otherRooms.includes(family)) problems.push(`the family room ${family} is missing or holds a module.ts`);
    for (const member of members) {
      if (!platformRooms.includes(member)) problems.push(`${member} of the family ${family} is no platform room`);
      const earlier = seen.get(member);
      if (earlier !== undefined) problems.push(`${member} belongs to both ${earlier} and ${family}`);
      seen.set(member, family);
    }
  }
  return problems;
}
