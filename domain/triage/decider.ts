import type { Decider } from '../shared/decider';
import type { TriageCommand } from './commands';
import { decide } from './decide';
import type { TriageStreamEvent } from './events';
import { evolve } from './evolve';
import { initialState, type TriageState } from './state';

/** The issue-triage decider over one issue stream (which also carries the issues context's lifecycle events). */
export const triageDecider: Decider<TriageCommand, TriageStreamEvent, TriageState> = { initialState, decide, evolve };
