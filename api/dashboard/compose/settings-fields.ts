import type { z } from 'zod';

/** How one setting of a platform's schema is typed in a form. */
export type SettingKind = 'text' | 'choice' | 'yes-no' | 'number' | 'text-list' | 'number-list' | 'api-only';

/** One field of a platform's settings form, read from its zod schema. */
export interface SettingField {
  key: string;
  kind: SettingKind;
  required: boolean;
  /** The schema's own description (`.describe`), shown as the field's help. */
  help: string | null;
  /** The choices of an enum. */
  choices: readonly string[];
  maxLength: number | null;
}

/** The parts of a zod v4 definition the form reads; anything else is a setting for the API only. */
interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { def: ZodDef }).def;

/** Optional, default and nullable wrappers removed, with whether one made the setting optional. */
function unwrapped(schema: z.ZodType): { inner: z.ZodType; optional: boolean; help: string | null } {
  let inner = schema;
  let optional = false;
  let help = schema.description ?? null;
  for (let def = defOf(inner); def.innerType !== undefined; def = defOf(inner)) {
    if (def.type === 'optional' || def.type === 'default') optional = true;
    if (!['optional', 'default', 'nullable'].includes(def.type)) break;
    inner = def.innerType;
    help ??= inner.description ?? null;
  }
  return { inner, optional, help };
}

function kindOf(schema: z.ZodType): SettingKind {
  const def = defOf(schema);
  if (def.type === 'string') return 'text';
  if (def.type === 'enum') return 'choice';
  if (def.type === 'boolean') return 'yes-no';
  if (def.type === 'number') return 'number';
  if (def.type === 'array' && def.element !== undefined) {
    const element = defOf(def.element).type;
    if (element === 'string') return 'text-list';
    if (element === 'number') return 'number-list';
  }
  return 'api-only';
}

/** The form of a platform's post settings: one field per key of its schema, in the schema's order. */
export function settingFields(schema: z.ZodObject): SettingField[] {
  return Object.entries(schema.shape).map(([key, value]) => {
    const { inner, optional, help } = unwrapped(value as z.ZodType);
    const kind = kindOf(inner);
    const entries = defOf(inner).entries;
    const maxLength = kind === 'text' ? ((inner as z.ZodString).maxLength ?? null) : null;
    return {
      key, kind, required: !optional, help, maxLength,
      choices: kind === 'choice' && entries !== undefined ? Object.values(entries).map(String) : [],
    };
  });
}

const listItems = (typed: string): string[] =>
  typed.split(',').map((item) => item.trim()).filter((item) => item !== '');

/** A typed number as a number; other text stays text, so the platform's schema names the problem. */
const numberOf = (typed: string): number | string => (/^-?\d+(\.\d+)?$/.test(typed.trim()) ? Number(typed) : typed);

/**
 * The post's settings from the typed values: an empty field is a setting left unset, a ticked box
 * is true, lists are comma-separated. The platform's schema then judges them, as POST /posts does.
 */
export function settingsFromForm(
  fields: SettingField[],
  typed: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const field of fields) {
    const value = typed[field.key] ?? '';
    if (field.kind === 'api-only' || value.trim() === '') continue;
    if (field.kind === 'yes-no') settings[field.key] = value === 'true';
    else if (field.kind === 'number') settings[field.key] = numberOf(value);
    else if (field.kind === 'text-list') settings[field.key] = listItems(value);
    else if (field.kind === 'number-list') settings[field.key] = listItems(value).map(numberOf);
    else settings[field.key] = value;
  }
  return settings;
}
