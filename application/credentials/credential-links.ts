import { credentialDecider } from '../../domain/credentials/credential';
import { CredentialRef, tokenHostOf } from '../../domain/targets/clone-endpoint';
import { DomainEvent } from '../../domain/shared/decider';
import { CommandHandler, RequestContext } from '../command-handler';
import { ExpectedRevision } from '../ports/event-store';
import { streams } from '../../domain/shared/streams';

export type StreamAppendPlan = { stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision };

/**
 * Which repositories name a credential is kept on the credential's own stream, appended in the same
 * commit as the repository's event with the revision read: a removal racing an attach loses on that
 * revision instead of leaving a repository pointing at nothing (EVENT-SOURCING trap 4). The
 * credential decider also refuses (400) an unknown credential, the wrong kind for the field, and a
 * token bound to another host than the URL's.
 */
export class CredentialLinks {
  constructor(private readonly commands: CommandHandler) {}

  /**
   * The appends that make repository `repositoryId` (clone URL `url`) name `next` instead of
   * `previous`. `recheck`: the URL changed, so a kept credential is checked against it again.
   */
  async appends(ctx: RequestContext, repositoryId: number, url: string, previous: CredentialRef | null, next: CredentialRef | null, recheck: boolean): Promise<StreamAppendPlan[]> {
    const plans: StreamAppendPlan[] = [];
    const moved = previous?.id !== next?.id;
    if (next && (moved || recheck)) {
      const { state, revision } = await this.commands.load(streams.credential(next.id), credentialDecider);
      const events = credentialDecider.decide({
        type: 'AttachCredential', id: next.id, repositoryId, expectedKind: next.kind, urlHost: tokenHostOf(url), actor: ctx.actor, now: ctx.now,
      }, state);
      plans.push({ stream: streams.credential(next.id), events, expectedRevision: revision ?? 'no_stream' });
    }
    if (previous && moved) {
      const { state, revision } = await this.commands.load(streams.credential(previous.id), credentialDecider);
      const events = credentialDecider.decide({ type: 'DetachCredential', repositoryId, actor: ctx.actor, now: ctx.now }, state);
      plans.push({ stream: streams.credential(previous.id), events, expectedRevision: revision ?? 'no_stream' });
    }
    return plans;
  }
}
