import { z } from 'zod';
import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import type { DerivedOperations } from './openapi-operations.ts';

/**
 * Reads the Bot API methods SPS calls out of PaulSonOfLars/telegram-bot-api-spec's api.json
 * (methods and types, each field with its Bot API types and whether it is required) as
 * operations on `/bot{token}/<method>`:
 * - POST takes the parameters as a JSON body, or as a multipart form (what the Bot API reads
 *   with files); GET takes them in the query. In a form or query every value is text: objects and
 *   arrays travel JSON-serialized (`contentMediaType: application/json`, their shape being the JSON
 *   body's), files as parts or `attach://<part>` strings;
 * - the answer is `{ok: true, result: <the method's return type>}`, a refusal `{ok: false,
 *   error_code, description, parameters?}` (core.telegram.org/bots/api#making-requests);
 * - types become definitions under their own names: objects with their fields, a type with
 *   subtypes (ChatMember) the union of them; a discriminating field the spec writes as `always
 *   "creator"` or `must be photo` becomes that constant, so the union can tell its members apart.
 */
const field = z.object({ name: z.string(), types: z.array(z.string()).min(1), required: z.boolean() }).loose();

const method = z.object({
  name: z.string(),
  returns: z.array(z.string()).min(1),
  fields: z.array(field).optional(),
}).loose();

const type = z.object({
  name: z.string(),
  fields: z.array(field).optional(),
  subtypes: z.array(z.string()).optional(),
}).loose();

const document = z.object({
  methods: z.record(z.string(), method),
  types: z.record(z.string(), type),
}).loose();

type Field = z.infer<typeof field>;
type TelegramDocument = z.infer<typeof document>;

const scalars: Record<string, JsonSchema> = {
  Integer: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  True: { const: true },
  // A file is uploaded as a multipart part, or named by a file_id, URL or attach://<part>: text either way.
  InputFile: { type: 'string' },
};

const arrayPrefix = 'Array of ';

/** `The member's status in the chat, always "creator"`, `Type of the media, must be photo`: the type's tag. */
const discriminator = /, (?:always "([a-z_]+)"|must be ([a-z_]+))$/;

function union(schemas: JsonSchema[]): JsonSchema {
  const distinct = [...new Map(schemas.map((schema) => [JSON.stringify(schema), schema])).values()];
  return distinct.length === 1 ? distinct[0] ?? {} : { anyOf: distinct };
}

class TelegramSchemas {
  readonly wanted = new Set<string>();
  private readonly spec: TelegramDocument;

  constructor(spec: TelegramDocument) {
    this.spec = spec;
  }

  /** One Bot API type name (`Integer`, `Array of Message`, `ChatMember`) as JSON Schema. */
  typeSchema(name: string): JsonSchema {
    const scalar = scalars[name];
    if (scalar !== undefined) return scalar;
    if (name.startsWith(arrayPrefix)) return { type: 'array', items: this.typeSchema(name.slice(arrayPrefix.length)) };
    if (!(name in this.spec.types)) throw new Error(`the description names a type it does not define: ${name}`);
    this.wanted.add(name);
    return { $ref: `#/definitions/${name}` };
  }

  fieldSchema(entry: Field): JsonSchema {
    const description = typeof entry.description === 'string' ? entry.description : '';
    const tag = discriminator.exec(description);
    const constant = tag?.[1] ?? tag?.[2];
    if (constant !== undefined && entry.types.length === 1 && entry.types[0] === 'String') {
      return { type: 'string', const: constant };
    }
    return union(entry.types.map((name) => this.typeSchema(name)));
  }

  /** A field as text in a form or query: scalars as themselves (coerced), anything else JSON-serialized. */
  textFieldSchema(entry: Field): JsonSchema {
    const structured = entry.types.some((name) => !(name in scalars));
    if (!structured) return this.fieldSchema(entry);
    // Its shape is the JSON body's field: whoever checks a form parses it and checks it there.
    return { type: 'string', contentMediaType: 'application/json' };
  }

  object(fields: Field[], schemaOf: (entry: Field) => JsonSchema): JsonSchema {
    const required = fields.filter((entry) => entry.required).map((entry) => entry.name);
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((entry) => [entry.name, schemaOf(entry)])),
      ...(required.length > 0 ? { required } : {}),
    };
  }

  definition(name: string): JsonSchema {
    const entry = this.spec.types[name];
    if (entry === undefined) throw new Error(`#/definitions/${name} is referenced but not defined`);
    if (entry.subtypes !== undefined && entry.subtypes.length > 0) {
      return { anyOf: entry.subtypes.map((subtype) => this.typeSchema(subtype)) };
    }
    // A type without fields (CallbackGame, which the Bot API defines with none) is an object left open.
    if (entry.fields === undefined) return { type: 'object' };
    return this.object(entry.fields, (each) => this.fieldSchema(each));
  }
}

const routeForm = /^(GET|POST) \/bot\{token\}\/([A-Za-z]+)$/;

export function telegramOperations(input: unknown, routes: string[]): DerivedOperations {
  const spec = document.parse(input);
  const schemas = new TelegramSchemas(spec);
  const operations = routes.map((route): DescribedOperation => {
    const parts = routeForm.exec(route);
    if (parts === null) throw new Error(`${route} is not a Bot API route (GET|POST /bot{token}/<method>)`);
    const [, verb = '', name = ''] = parts;
    const entry = spec.methods[name];
    if (entry === undefined) {
      const wanted = name.toLowerCase();
      const near = Object.keys(spec.methods).filter((candidate) =>
        candidate.toLowerCase().includes(wanted) || wanted.includes(candidate.toLowerCase()));
      throw new Error(`${route} is not in the description (methods like it: ${near.slice(0, 5).join(', ')})`);
    }
    const fields = entry.fields ?? [];
    const asText = schemas.object(fields, (each) => schemas.textFieldSchema(each));
    const parameters = verb === 'GET'
      ? { query: asText }
      : {
        body: {
          'application/json': schemas.object(fields, (each) => schemas.fieldSchema(each)),
          'multipart/form-data': asText,
        },
        bodyRequired: fields.some((each) => each.required),
      };
    return {
      route,
      pathParameters: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
      ...parameters,
      responses: {
        200: {
          type: 'object',
          required: ['ok', 'result'],
          properties: { ok: { const: true }, result: union(entry.returns.map((each) => schemas.typeSchema(each))) },
        },
        '4XX': refusal(schemas),
        '5XX': refusal(schemas),
      },
    };
  });

  const definitions: Record<string, JsonSchema> = {};
  for (let pending = [...schemas.wanted]; pending.length > 0;
    pending = [...schemas.wanted].filter((name) => !(name in definitions))) {
    for (const name of pending) definitions[name] = schemas.definition(name);
  }
  const sorted = Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b));
  return { operations, definitions: Object.fromEntries(sorted) };
}

/** core.telegram.org/bots/api#making-requests: ok false, error_code, description, at times ResponseParameters. */
function refusal(schemas: TelegramSchemas): JsonSchema {
  return {
    type: 'object',
    required: ['ok', 'error_code', 'description'],
    properties: {
      ok: { const: false },
      error_code: { type: 'integer' },
      description: { type: 'string' },
      parameters: schemas.typeSchema('ResponseParameters'),
    },
  };
}
