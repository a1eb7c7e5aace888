// `npm run operations:derive [platform...]`: writes each simulator folder's operations.json from its
// operations.source.json and the platform's published description in the platform-specs folder that
// sits beside the repository (PLATFORM_SPECS_DIR to point elsewhere). The simulators are held to the
// written files; this script is only needed again when a selection, a correction or a description changes.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  operationFile, operationSelection, type OperationFile, type OperationSelection,
} from '../../test/simulators/kit/operation-file.ts';
import { applyCorrections } from './corrections.ts';
import { descriptionReaders } from './description-readers.ts';
import type { DerivedOperations } from './openapi-operations.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');
export const simulatorsDir = path.join(repositoryRoot, 'test', 'simulators');
export const specsDir = process.env.PLATFORM_SPECS_DIR
  ?? path.resolve(repositoryRoot, '..', 'shared', 'platform-specs');

interface Provenance { repository: string; commit: string }

/** PROVENANCE.tsv: repository folder (owner+name), path inside it, commit, size. */
function provenanceOf(description: string): Provenance | undefined {
  const [folder = '', ...rest] = description.split('/');
  const inside = rest.join('/');
  const table = readFileSync(path.join(specsDir, 'PROVENANCE.tsv'), 'utf8');
  for (const line of table.split('\n')) {
    const [repository, file, commit] = line.split('\t');
    if (repository === folder && file === inside && commit !== undefined) {
      return { repository: repository.replace('+', '/'), commit };
    }
  }
  return undefined;
}

type Format = OperationSelection['format'];

/** One description read for its routes, with its fingerprint and provenance. */
function readDescription(description: string, format: Format, routes: string[]): {
  derived: DerivedOperations;
  source: { sha256: string } & Partial<Provenance>;
} {
  const file = path.join(specsDir, description);
  const reader = descriptionReaders[format];
  if (reader === undefined) throw new Error(`no reader for ${format} descriptions`);
  const derived = reader(file, routes);
  // A description split over a folder is fingerprinted by the files its reader read, in order.
  const hash = createHash('sha256');
  for (const read of statSync(file).isFile() ? [file] : derived.filesRead ?? []) hash.update(readFileSync(read));
  return { derived, source: { sha256: hash.digest('hex'), ...provenanceOf(description) } };
}

/** JSON with its keys sorted, so two descriptions' equal schemas compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'object' && inner !== null
    && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
    : inner));
}

/** A further description's operations and definitions joined to the first's; a clash is an error. */
function join(into: DerivedOperations, further: DerivedOperations, description: string): void {
  for (const operation of further.operations) {
    if (into.operations.some((known) => known.route === operation.route)) {
      throw new Error(`${description}: ${operation.route} is already described`);
    }
    into.operations.push(operation);
  }
  for (const [name, schema] of Object.entries(further.definitions)) {
    const known = into.definitions[name];
    if (known !== undefined && canonical(known) !== canonical(schema)) {
      throw new Error(`${description}: definition ${name} differs from an earlier description's`);
    }
    into.definitions[name] = schema;
  }
}

export function deriveOperations(selection: OperationSelection): OperationFile {
  const derived: DerivedOperations = { operations: [], definitions: {} };
  const source: OperationFile['source'] = { description: selection.description, format: selection.format };
  if (selection.description !== null) {
    const first = readDescription(selection.description, selection.format, selection.routes);
    join(derived, first.derived, selection.description);
    Object.assign(source, first.source);
  }
  if (selection.note !== undefined) source.note = selection.note;
  for (const further of selection.alsoDescribedBy ?? []) {
    const read = readDescription(further.description, further.format, further.routes);
    join(derived, read.derived, further.description);
    source.alsoDescribedBy = [
      ...source.alsoDescribedBy ?? [],
      { description: further.description, format: further.format, ...read.source },
    ];
  }
  for (const [name, schema] of Object.entries(selection.definitions)) {
    if (name in derived.definitions) throw new Error(`definition ${name} is both described and written`);
    derived.definitions[name] = schema;
  }
  if (selection.alsoDescribedBy !== undefined) {
    const sorted = Object.entries(derived.definitions).sort(([a], [b]) => a.localeCompare(b));
    derived.definitions = Object.fromEntries(sorted);
  }
  const document: OperationFile = {
    platform: selection.platform,
    ...(selection.basePath === undefined ? {} : { basePath: selection.basePath }),
    generatedBy: 'npm run operations:derive (scripts/platform-operations/derive-operations.ts)',
    source,
    operations: [...derived.operations, ...selection.written],
    definitions: derived.definitions,
    corrections: selection.corrections,
  };
  applyCorrections(document, selection.corrections);
  return operationFile.parse(document);
}

export function selectionFiles(): string[] {
  return readdirSync(simulatorsDir)
    .map((folder) => path.join(simulatorsDir, folder, 'operations.source.json'))
    .filter((file) => existsSync(file));
}

function main(): void {
  const only = new Set(process.argv.slice(2));
  for (const file of selectionFiles()) {
    const selection = operationSelection.parse(JSON.parse(readFileSync(file, 'utf8')));
    if (only.size > 0 && !only.has(selection.platform)) continue;
    const document = deriveOperations(selection);
    const target = path.join(path.dirname(file), 'operations.json');
    writeFileSync(target, `${JSON.stringify(document, null, 1)}\n`);
    const definitions = Object.keys(document.definitions).length;
    process.stdout.write(`${selection.platform}: ${String(document.operations.length)} operations, `
      + `${String(definitions)} definitions -> ${path.relative(repositoryRoot, target)}\n`);
  }
}

if (import.meta.filename === process.argv[1]) main();
