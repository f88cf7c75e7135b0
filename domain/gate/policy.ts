import { refuse } from '../shared/decider';
import { parseSeverityThreshold, type Severity } from './severity';

/** A gate policy as POST /gate (or a stored gate policy) states it; every member optional. */
export interface GatePolicyInput {
  readonly include_triaged?: boolean | null;
  readonly fixable_only?: boolean | null;
  readonly severity?: string | null;
  readonly include_plugins?: boolean | null;
  /**
   * Minimum line coverage in percent (0..100) over the newest coverage import. Not one of the four
   * flags of spec 1 §2.8: the coverage rule exists in the verdict vocabulary, and Vigil keeps it
   * dormant until a policy names a minimum, so a default request never fails on coverage.
   */
  readonly min_line_coverage?: number | null;
}

export interface GatePolicy {
  readonly includeTriaged: boolean;
  readonly fixableOnly: boolean;
  readonly severity: Severity;
  readonly includePlugins: boolean;
  readonly minLineCoverage: number | null;
}

export const DEFAULT_GATE_POLICY: GatePolicy = {
  includeTriaged: false,
  fixableOnly: false,
  severity: 'high',
  includePlugins: false,
  minLineCoverage: null,
};

function flag(input: GatePolicyInput, name: 'include_triaged' | 'fixable_only' | 'include_plugins', fallback: boolean): boolean {
  const value: unknown = input[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw refuse.invalid(`Gate policy ${name} must be true or false`, { field: name });
  return value;
}

function minimumCoverage(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw refuse.invalid('Gate policy min_line_coverage must be a percentage from 0 to 100', { field: 'min_line_coverage' });
  }
  return value;
}

/** Reads a policy, applying the defaults; a bad severity is 400 "Unknown severity" (spec 1 §7). */
export function parseGatePolicy(input?: GatePolicyInput | null): GatePolicy {
  if (input === undefined || input === null) return DEFAULT_GATE_POLICY;
  const d = DEFAULT_GATE_POLICY;
  return {
    includeTriaged: flag(input, 'include_triaged', d.includeTriaged),
    fixableOnly: flag(input, 'fixable_only', d.fixableOnly),
    severity: parseSeverityThreshold(input.severity, d.severity),
    includePlugins: flag(input, 'include_plugins', d.includePlugins),
    minLineCoverage: minimumCoverage(input.min_line_coverage),
  };
}
