import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { OperationSelection } from '../../test/simulators/kit/operation-file.ts';
import { openapiOperations, type DerivedOperations } from './openapi-operations.ts';
import { telegramOperations } from './telegram-operations.ts';
import { vkOperations } from './vk-operations.ts';
import { metaOperations } from './meta-operations.ts';
import { discoveryOperations } from './discovery-operations.ts';
import { graphqlOperations } from './graphql-operations.ts';
import { lexiconOperations } from './lexicon-operations.ts';
import { wordpressOperations } from './wordpress-operations.ts';

/**
 * One reader per description format: each takes the description's path (a file, or a folder for
 * descriptions split over many files) and the routes a platform's selection names, and answers the
 * operations with the definitions they reach.
 */
export type DescriptionReader = (description: string, routes: string[]) => DerivedOperations;

export function readDocument(file: string): Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  const parsed: unknown = /\.ya?ml$/.test(file) ? parseYaml(text) : JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${file} holds no document`);
  return parsed as Record<string, unknown>;
}

const openapi: DescriptionReader = (file, routes) => openapiOperations(readDocument(file), routes);

export const descriptionReaders: Partial<Record<OperationSelection['format'], DescriptionReader>> = {
  openapi,
  swagger2: openapi,
  telegram: (file, routes) => telegramOperations(readDocument(file), routes),
  vk: vkOperations,
  meta: metaOperations,
  discovery: (file, routes) => discoveryOperations(readDocument(file), routes),
  graphql: graphqlOperations,
  lexicon: lexiconOperations,
  wordpress: wordpressOperations,
};
