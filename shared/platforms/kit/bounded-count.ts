/**
 * What a bounded count found: the length, or why the text was refused before it was counted in
 * full (a clause that completes "has more than N characters: …").
 */
export type BoundedCount = { length: number } | { overBecause: string };
