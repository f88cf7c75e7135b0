import { credentialDecider } from '../../domain/credentials/credential';
import { CredentialRef, tokenHostOf } from '../../domain/targets/clone-endpoint';
import { Attempt, RequestContext } from '../command-handler';
import { streams } from '../../domain/shared/streams';

/**
 * Which repositories name a credential is kept on the credential's own stream, decided in the unit
 * of work of the repository's event and committed with it at the revision read: a removal racing an
 * attach loses on that revision instead of leaving a repository pointing at nothing (EVENT-SOURCING
 * trap 4). The credential decider also refuses (400) an unknown credential, the wrong kind for the
 * field, and a token bound to another host than the URL's.
 *
 * Records, in `attempt`, what makes repository `repositoryId` (clone URL `url`) name `next` instead
 * of `previous`. `recheck`: the URL changed, so a kept credential is checked against it again.
 */
export async function decideCredentialLinks(
  attempt: Attempt, ctx: RequestContext, repositoryId: number, url: string, previous: CredentialRef | null, next: CredentialRef | null, recheck: boolean,
): Promise<void> {
  const moved = previous?.id !== next?.id;
  if (next && (moved || recheck)) {
    await attempt.decide(streams.credential(next.id), credentialDecider, {
      type: 'AttachCredential', id: next.id, repositoryId, expectedKind: next.kind, urlHost: tokenHostOf(url), actor: ctx.actor, now: ctx.now,
    });
  }
  if (previous && moved) {
    await attempt.decide(streams.credential(previous.id), credentialDecider, { type: 'DetachCredential', repositoryId, actor: ctx.actor, now: ctx.now });
  }
}
