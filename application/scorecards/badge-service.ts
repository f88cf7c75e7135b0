import { badgeDecider } from '../../domain/scorecards/badge-token';
import { refuse } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { TARGET_NOUN, type TargetKind } from '../../domain/shared/target-kind';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { BadgeTargets, BadgeTokenSource } from './ports';

/**
 * Badge tokens (spec 1 §4.6, S1.2.9-16): issuing and revoking, through the badge decider
 * (domain/scorecards/badge-token.ts). The badges list and the public image are queries
 * (projections/scorecards/badge-queries.ts).
 */
export class BadgeService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly targets: BadgeTargets,
    private readonly tokens: BadgeTokenSource,
  ) {}

  /**
   * POST /scorecards/badges: a new public badge token for one target (administrators). The token is in
   * this answer only; Vigil keeps its SHA-256. Anyone holding the token can read the target's letter.
   */
  async issue(ctx: RequestContext, body: { repositoryId?: number; containerId?: number }) {
    const named = ([['repository', body.repositoryId], ['container', body.containerId]] as const).filter(([, v]) => v !== undefined);
    if (named.length !== 1) throw refuse.invalid('Name exactly one of repositoryId and containerId.');
    const [kind, targetId] = named[0] as [TargetKind, number];
    if (!(await this.targets.exists(kind, targetId))) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${targetId}.`);
    const token = this.tokens.newToken();
    const id = await this.ids.next('scorecard_badge');
    const { events } = await this.commands.execute(streams.scorecardBadge(id), badgeDecider,
      { type: 'IssueBadge', id, targetKind: kind, targetId, tokenHash: sha256Hex(token), actor: ctx.actor, now: ctx.now }, ctx);
    return { id, token, targetKind: kind, targetId, path: `/api/v1/scorecards/badges/${token}.svg`, issuedAt: events[0].data.at };
  }

  /** DELETE /scorecards/badges/{id}: the image answers 404 from now on; revoking twice changes nothing. */
  async revoke(ctx: RequestContext, id: number): Promise<void> {
    await this.commands.execute(streams.scorecardBadge(id), badgeDecider, { type: 'RevokeBadge', id, actor: ctx.actor, now: ctx.now }, ctx);
  }
}
