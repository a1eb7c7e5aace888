/**
 * Answers a simulator sent that its platform's description does not allow. The simulator still
 * sends them (the adapter under test sees what it would have seen), and the test that caused
 * them fails afterwards (test/support/simulator-conformance.ts, a setup file of every test file),
 * naming the answer: a simulator that answers what no platform sends could hide an adapter bug.
 */
export interface OffDescriptionAnswer {
  platform: string;
  route: string;
  status: number;
  problems: string[];
}

const recorded: OffDescriptionAnswer[] = [];

export function recordOffDescription(answer: OffDescriptionAnswer): void {
  recorded.push(answer);
}

/** What was recorded since the last call, which empties the log. */
export function takeOffDescription(): OffDescriptionAnswer[] {
  return recorded.splice(0, recorded.length);
}
