import { Visibility } from '../../application/identity/visibility';
import type { BadgeTargets } from '../../application/scorecards/ports';
import { renderBadgeSvg } from '../../domain/scorecards';
import { refuse } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { TARGET_TABLE } from '../targets/tables';
import { ScorecardFigures } from './figures';

/** Everyone: a badge shows its target's letter to whoever holds the token. */
const EVERYONE = new Visibility(true, new Set(), new Set(), new Set(), null);

/** Badge tokens as `scorecard_badges` keeps them (only their SHA-256), and the public image (spec 1 §4.6). */
export class BadgeQueries implements BadgeTargets {
  constructor(private readonly db: Database, private readonly figures: ScorecardFigures) {}

  /** GET /scorecards/badges: every badge token issued, without the token. */
  async list() {
    const rows: Array<{ id: number; target_kind: TargetKind; target_id: number; issued_by: number | null; issued_at: string; revoked_at: string | null }> =
      await this.db.knex('scorecard_badges').orderBy('id').select('id', 'target_kind', 'target_id', 'issued_by', 'issued_at', 'revoked_at');
    return rows.map((r) => ({
      id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id), issuedBy: r.issued_by === null ? null : Number(r.issued_by),
      issuedAt: r.issued_at, revokedAt: r.revoked_at,
    }));
  }

  /** GET /scorecards/badges/{token}.svg (public): the letter only (S1.2.9-16). Unknown, revoked or orphaned tokens: 404. */
  async svg(token: string): Promise<string> {
    const unknown = () => refuse.notFound('No such badge.');
    if (!/^vgl_b_[A-Za-z0-9_-]{43}$/.test(token)) throw unknown();
    const badge: { target_kind: TargetKind; target_id: number } | undefined = await this.db.knex('scorecard_badges')
      .where({ token_hash: sha256Hex(token) }).whereNull('revoked_at').first('target_kind', 'target_id');
    if (!badge || !(badge.target_kind in TARGET_TABLE)) throw unknown();
    const [target] = await this.figures.figures(EVERYONE, { kind: badge.target_kind, id: Number(badge.target_id) });
    if (!target) throw unknown();
    return renderBadgeSvg(target.grade);
  }

  /** Whether the target a badge is asked for exists (the targets read model's table). */
  async exists(kind: TargetKind, id: number): Promise<boolean> {
    return Boolean(await this.db.knex(TARGET_TABLE[kind]).where({ id }).first());
  }
}
