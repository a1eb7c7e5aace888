import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { invalidRequest, pinterestError } from './pinterest-answers.ts';
import type { SimulatedPin } from './pinterest-pins.ts';

/**
 * The analytics routes (design-blogging-business.md 1.6): a window of dates is required, starting
 * at most 90 days back and ending at most 90 days after its start; a pin's metric_types are
 * required too. Counters are what the test set on the account or the pin.
 */

const dayMs = 24 * 3600_000;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;

function windowProblem(request: SimulatedRequest): SimulatedAnswer | null {
  const start = request.query.get('start_date') ?? '';
  const end = request.query.get('end_date') ?? '';
  if (!datePattern.test(start) || !datePattern.test(end)) {
    return invalidRequest('Invalid request: start_date and end_date are required as YYYY-MM-DD.');
  }
  const from = Date.parse(`${start}T00:00:00Z`);
  const to = Date.parse(`${end}T00:00:00Z`);
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  if (today - from > 90 * dayMs) return invalidRequest('Invalid request: start_date is more than 90 days ago.');
  if (to < from || to - from > 90 * dayMs) return invalidRequest('Invalid request: end_date is out of range.');
  return null;
}

function picked(metrics: Record<string, number>, wanted: string | null): Record<string, number> {
  if (wanted === null) return { ...metrics };
  const names = wanted.split(',');
  return Object.fromEntries(Object.entries(metrics).filter(([name]) => names.includes(name)));
}

export function accountAnalytics(request: SimulatedRequest, metrics: Record<string, number>): SimulatedAnswer {
  const problem = windowProblem(request);
  if (problem !== null) return problem;
  const summary = picked(metrics, request.query.get('metric_types'));
  return { status: 200, body: { all: { daily_metrics: [], summary_metrics: summary } } };
}

export function pinAnalytics(request: SimulatedRequest, pin: SimulatedPin | undefined): SimulatedAnswer {
  if (pin === undefined) return pinterestError(404, 50, 'Pin not found.');
  const problem = windowProblem(request);
  if (problem !== null) return problem;
  const wanted = request.query.get('metric_types');
  if (wanted === null || wanted === '') return invalidRequest('Invalid request: metric_types is required.');
  const read = picked(pin.metrics, wanted);
  return { status: 200, body: { all: { daily_metrics: [], summary_metrics: read, lifetime_metrics: read } } };
}
