import type { TargetKind } from '../../domain/shared/target-kind';

/** New public badge tokens: `vgl_b_` and 32 random bytes, base64url (infrastructure/crypto/badge-tokens.ts). */
export interface BadgeTokenSource {
  newToken(): string;
}

/** Whether a target exists, whoever sees it (projections/scorecards/badge-queries.ts). */
export interface BadgeTargets {
  exists(kind: TargetKind, id: number): Promise<boolean>;
}
