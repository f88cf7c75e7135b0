import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { repositoryIdentity, uniquenessKey } from '../../../domain/targets/repository-identity';
import {
  ContainerImageRegistered, RegisterContainer, RegisterRepository, RepositoryRegistered, TargetCommand, TargetCommandType,
  targetDecider, TargetEvent, TargetStatus, targetTransitions,
} from '../../../domain/targets/target';
import { deciderSpec } from '../../support/decider-spec';

const spec = deciderSpec(targetDecider);
const now = new Date('2024-06-05T12:00:00.000Z');
const later = new Date('2024-06-06T08:30:00.000Z');
const actor = 'account:3';
const KEY_MAIN = uniquenessKey('git.example/org/repo', 'main', '');

const registerRepository: RegisterRepository = { type: 'RegisterRepository', id: 7, url: 'https://Git.Example/Org/Repo.git', actor, now };
const registerContainer: RegisterContainer = { type: 'RegisterContainer', id: 8, image: 'registry.example/team/app:1.2', actor, now };

const repositoryRegistered: RepositoryRegistered = {
  type: 'RepositoryRegistered',
  data: {
    id: 7, url: 'https://Git.Example/Org/Repo.git', identity: 'git.example/org/repo', branch: 'main', subPath: '',
    uniquenessKey: KEY_MAIN, name: 'repo', projectId: null, scanManualOnly: false, scanIntervalMinutes: null, scanCron: null,
    registeredAt: '2024-06-05T12:00:00.000Z', registeredBy: actor,
  },
};
const containerRegistered: ContainerImageRegistered = {
  type: 'ContainerImageRegistered',
  data: {
    id: 8, image: 'registry.example/team/app:1.2', name: 'registry.example/team/app:1.2', projectId: null,
    scanManualOnly: false, scanIntervalMinutes: null, scanCron: null, registeredAt: '2024-06-05T12:00:00.000Z', registeredBy: actor,
  },
};
const repositoryDeleted: TargetEvent = {
  type: 'TargetDeleted', data: { id: 7, kind: 'repository', uniquenessKey: KEY_MAIN, deletedAt: later.toISOString(), deletedBy: actor },
};
const update = (id: number, changes: Extract<TargetCommand, { type: 'UpdateTarget' }>['changes']): TargetCommand =>
  ({ type: 'UpdateTarget', id, changes, actor, now: later });

describe('Target decider', () => {
  describe('registration', () => {
    it('registers a repository: identity, branch main, root sub-path, name from the path, its uniqueness key', () => {
      spec.given([]).when(registerRepository).then([repositoryRegistered]);
    });

    it('registers a repository with every field named', () => {
      spec.given([]).when({
        ...registerRepository, branch: 'develop', subPath: '/services/api/', name: ' API ', projectId: 4, scanIntervalMinutes: 120,
      }).then([{
        type: 'RepositoryRegistered',
        data: {
          ...repositoryRegistered.data, branch: 'develop', subPath: 'services/api', name: 'API', projectId: 4, scanIntervalMinutes: 120,
          uniquenessKey: uniquenessKey('git.example/org/repo', 'develop', 'services/api'),
        },
      }]);
    });

    it('registers a container image, named after its reference unless named', () => {
      spec.given([]).when(registerContainer).then([containerRegistered]);
      spec.given([]).when({ ...registerContainer, name: 'App', scanCron: '0 3 * * *' })
        .then([{ ...containerRegistered, data: { ...containerRegistered.data, name: 'App', scanCron: '0 3 * * *' } }]);
    });

    it('[S1.2.1-02] a target registered manual-only has no interval and no expression', () => {
      spec.given([]).when({ ...registerRepository, scanManualOnly: true, scanIntervalMinutes: 0 })
        .then([{ ...repositoryRegistered, data: { ...repositoryRegistered.data, scanManualOnly: true } }]);
    });

    it('[S1.2.1-03] manual-only with a positive interval is refused (400)', () => {
      spec.given([]).when({ ...registerRepository, scanManualOnly: true, scanIntervalMinutes: 60 }).thenRefused('invalid');
    });

    it('[S1.2.1-04] manual-only with a cron expression is refused (400)', () => {
      spec.given([]).when({ ...registerContainer, scanManualOnly: true, scanCron: '0 3 * * *' }).thenRefused('invalid');
    });

    it('[S1.2.1-06] interval 0 is stored as null', () => {
      spec.given([]).when({ ...registerRepository, scanIntervalMinutes: 0 }).then([repositoryRegistered]);
    });

    it('[S1.2.1-07] a negative interval is refused (400)', () => {
      spec.given([]).when({ ...registerContainer, scanIntervalMinutes: -10 }).thenRefused('invalid');
    });

    it('refuses (400) a garbage URL, an invalid image, a bad branch, a sub-path leaving the clone, a bad project id', () => {
      spec.given([]).when({ ...registerRepository, url: 'not a url' }).thenRefused('invalid');
      spec.given([]).when({ ...registerContainer, image: 'Team/App' }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, branch: '--upload-pack=x' }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, subPath: '../../etc' }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, projectId: 0 }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, name: 'x'.repeat(201) }).thenRefused('invalid');
    });

    it('[S1.2.1-01] a target id is a positive integer', () => {
      spec.given([]).when({ ...registerRepository, id: 1.5 }).thenRefused('invalid');
      spec.given([]).when({ ...registerContainer, id: -1 }).thenRefused('invalid');
    });

    it('refuses (409) to register a target id that already has a stream', () => {
      spec.given([repositoryRegistered]).when(registerRepository).thenRefused('conflict');
      spec.given([repositoryRegistered, repositoryDeleted]).when(registerContainer).thenRefused('conflict');
    });
  });

  describe('placement: required agent and required labels', () => {
    it('[S1.2.1-20] a registration records the required agent and the labels, sorted without repeats; none named records neither', () => {
      const events = targetDecider.decide({ ...registerRepository, requiredAgentId: 12, requiredLabels: ['linux', 'dmz', 'linux'] }, targetDecider.initialState());
      expect(events[0].data).to.deep.include({ requiredAgentId: 12, requiredLabels: ['dmz', 'linux'] });
      const image = targetDecider.decide({ ...registerContainer, requiredLabels: ['gpu'] }, targetDecider.initialState());
      expect(image[0].data).to.deep.include({ requiredLabels: ['gpu'] }).and.not.have.property('requiredAgentId');
      spec.given([]).when(registerRepository).then([repositoryRegistered]);
    });

    it('[S1.2.1-20] refuses (400) a required agent that is no positive integer, a label with a space or a control character, one too long, too many', () => {
      spec.given([]).when({ ...registerRepository, requiredAgentId: 0 }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, requiredAgentId: 1.5 }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, requiredLabels: ['two words'] }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, requiredLabels: ['tab\there'] }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, requiredLabels: ['x'.repeat(65)] }).thenRefused('invalid');
      spec.given([]).when({ ...registerRepository, requiredLabels: Array.from({ length: 33 }, (_, i) => `l${i}`) }).thenRefused('invalid');
      spec.given([repositoryRegistered]).when(update(7, { requiredLabels: [''] })).thenRefused('invalid');
    });

    it('[S1.2.1-20] a PATCH pins, changes and clears (null, []) the placement; the same placement again records nothing', () => {
      const pinned: TargetEvent = { type: 'TargetUpdated', data: { id: 7, kind: 'repository', changes: { requiredAgentId: 12, requiredLabels: ['dmz'] }, updatedAt: later.toISOString(), updatedBy: actor } };
      spec.given([repositoryRegistered]).when(update(7, { requiredAgentId: 12, requiredLabels: ['dmz'] })).then([pinned]);
      spec.given([repositoryRegistered, pinned]).when(update(7, { requiredAgentId: 12, requiredLabels: ['dmz', 'dmz'] })).then([]);
      spec.given([repositoryRegistered, pinned]).when(update(7, { requiredAgentId: null, requiredLabels: null })).then([{
        type: 'TargetUpdated', data: { id: 7, kind: 'repository', changes: { requiredAgentId: null, requiredLabels: [] }, updatedAt: later.toISOString(), updatedBy: actor },
      }]);
      spec.given([repositoryRegistered, pinned]).when(update(7, { name: 'other' })).then([{
        type: 'TargetUpdated', data: { id: 7, kind: 'repository', changes: { name: 'other' }, updatedAt: later.toISOString(), updatedBy: actor },
      }]);
    });
  });

  describe('update (PATCH)', () => {
    it('records only the fields that changed', () => {
      spec.given([repositoryRegistered]).when(update(7, { name: 'Payments', scanIntervalMinutes: 60, projectId: null })).then([{
        type: 'TargetUpdated',
        data: { id: 7, kind: 'repository', changes: { name: 'Payments', scanIntervalMinutes: 60 }, updatedAt: later.toISOString(), updatedBy: actor },
      }]);
    });

    it('records nothing when nothing changes (a repeated PATCH)', () => {
      spec.given([repositoryRegistered]).when(update(7, { name: 'repo', url: 'https://Git.Example/Org/Repo.git', branch: 'main', scanIntervalMinutes: 0 })).then([]);
    });

    it('[S1.2.1-34] a new branch moves the repository to another key: the event names the previous and current key', () => {
      const current = uniquenessKey('git.example/org/repo', 'release', '');
      spec.given([repositoryRegistered]).when(update(7, { branch: 'release' })).then([{
        type: 'TargetUpdated',
        data: {
          id: 7, kind: 'repository', changes: { branch: 'release' }, uniquenessKey: { previous: KEY_MAIN, current },
          updatedAt: later.toISOString(), updatedBy: actor,
        },
      }]);
    });

    it('[S1.2.1-33] a new URL with another identity records url, identity and the key move', () => {
      const url = 'git@other.example:org/repo.git';
      const identity = repositoryIdentity(url);
      spec.given([repositoryRegistered]).when(update(7, { url, subPath: 'svc' })).then([{
        type: 'TargetUpdated',
        data: {
          id: 7, kind: 'repository', changes: { url, identity, subPath: 'svc' },
          uniquenessKey: { previous: KEY_MAIN, current: uniquenessKey(identity, 'main', 'svc') },
          updatedAt: later.toISOString(), updatedBy: actor,
        },
      }]);
    });

    it('[S1.2.1-33] a URL spelled differently for the same repository keeps the key', () => {
      spec.given([repositoryRegistered]).when(update(7, { url: 'ssh://git@git.example:22/org/repo' })).then([{
        type: 'TargetUpdated',
        data: { id: 7, kind: 'repository', changes: { url: 'ssh://git@git.example:22/org/repo' }, updatedAt: later.toISOString(), updatedBy: actor },
      }]);
    });

    it('[S1.2.1-02] manual-only clears the interval and the expression', () => {
      const scheduled: TargetEvent = { ...containerRegistered, data: { ...containerRegistered.data, scanIntervalMinutes: 30, scanCron: '0 3 * * *' } };
      spec.given([scheduled]).when(update(8, { scanManualOnly: true })).then([{
        type: 'TargetUpdated',
        data: {
          id: 8, kind: 'container', changes: { scanManualOnly: true, scanIntervalMinutes: null, scanCron: null },
          updatedAt: later.toISOString(), updatedBy: actor,
        },
      }]);
    });

    it('[S1.2.1-05] naming an interval on a manual-only target turns scanManualOnly false', () => {
      const manual: TargetEvent = { ...repositoryRegistered, data: { ...repositoryRegistered.data, scanManualOnly: true } };
      spec.given([manual]).when(update(7, { scanIntervalMinutes: 45 })).then([{
        type: 'TargetUpdated',
        data: { id: 7, kind: 'repository', changes: { scanManualOnly: false, scanIntervalMinutes: 45 }, updatedAt: later.toISOString(), updatedBy: actor },
      }]);
    });

    it('[S1.2.1-03] [S1.2.1-04] [S1.2.1-07] the schedule 400s apply to PATCH too', () => {
      spec.given([repositoryRegistered]).when(update(7, { scanManualOnly: true, scanIntervalMinutes: 5 })).thenRefused('invalid');
      spec.given([repositoryRegistered]).when(update(7, { scanManualOnly: true, scanCron: '0 3 * * *' })).thenRefused('invalid');
      spec.given([repositoryRegistered]).when(update(7, { scanIntervalMinutes: -1 })).thenRefused('invalid');
      spec.given([repositoryRegistered]).when(update(7, { scanCron: '0 0 0 3 * *' })).thenRefused('invalid');
    });

    it('refuses (400) fields of the other kind', () => {
      spec.given([repositoryRegistered]).when(update(7, { image: 'alpine' })).thenRefused('invalid');
      spec.given([containerRegistered]).when(update(8, { url: 'https://h.example/x' })).thenRefused('invalid');
      spec.given([containerRegistered]).when(update(8, { branch: 'dev' })).thenRefused('invalid');
    });

    it('a blank name goes back to the derived name; a new image is validated', () => {
      const named: TargetEvent = { ...containerRegistered, data: { ...containerRegistered.data, name: 'App' } };
      spec.given([named]).when(update(8, { name: '', image: 'alpine:3.20' })).then([{
        type: 'TargetUpdated',
        data: { id: 8, kind: 'container', changes: { name: 'alpine:3.20', image: 'alpine:3.20' }, updatedAt: later.toISOString(), updatedBy: actor },
      }]);
      spec.given([named]).when(update(8, { image: 'alpine@sha256:short' })).thenRefused('invalid');
    });

    it('refuses (404) to update an unknown or deleted target', () => {
      spec.given([]).when(update(7, { name: 'x' })).thenRefused('not_found');
      spec.given([repositoryRegistered, repositoryDeleted]).when(update(7, { name: 'x' })).thenRefused('not_found');
    });
  });

  describe('delete', () => {
    it('deletes a repository, naming the key to release', () => {
      spec.given([repositoryRegistered]).when({ type: 'DeleteTarget', id: 7, actor, now: later }).then([repositoryDeleted]);
    });

    it('deletes a container image, which holds no key', () => {
      spec.given([containerRegistered]).when({ type: 'DeleteTarget', id: 8, actor, now: later }).then([{
        type: 'TargetDeleted', data: { id: 8, kind: 'container', uniquenessKey: null, deletedAt: later.toISOString(), deletedBy: actor },
      }]);
    });

    it('refuses (404) to delete an unknown or already deleted target', () => {
      spec.given([]).when({ type: 'DeleteTarget', id: 7, actor, now: later }).thenRefused('not_found');
      spec.given([repositoryRegistered, repositoryDeleted]).when({ type: 'DeleteTarget', id: 7, actor, now: later }).thenRefused('not_found');
    });
  });

  describe('evolve', () => {
    it('folds updates, including a key move, into the current target', () => {
      const events = [repositoryRegistered, ...targetDecider.decide(update(7, { branch: 'release', scanCron: '0 3 * * *' }), fold(targetDecider, [repositoryRegistered]))];
      const state = fold(targetDecider, events);
      expect(state.status).to.equal('active');
      expect(state.status !== 'none' && state.target).to.deep.include({
        kind: 'repository', branch: 'release', scanCron: '0 3 * * *', uniquenessKey: uniquenessKey('git.example/org/repo', 'release', ''),
      });
    });
  });

  describe('transition table', () => {
    const histories: Record<TargetStatus, TargetEvent[]> = {
      none: [],
      active: [repositoryRegistered],
      deleted: [repositoryRegistered, repositoryDeleted],
    };
    const commands: Record<TargetCommandType, TargetCommand> = {
      RegisterRepository: registerRepository,
      RegisterContainer: registerContainer,
      UpdateTarget: update(7, { name: 'Other' }),
      DeleteTarget: { type: 'DeleteTarget', id: 7, actor, now: later },
    };
    const refusals: Record<TargetCommandType, 'conflict' | 'not_found'> = {
      RegisterRepository: 'conflict', RegisterContainer: 'conflict', UpdateTarget: 'not_found', DeleteTarget: 'not_found',
    };
    for (const status of Object.keys(targetTransitions) as TargetStatus[]) {
      for (const type of Object.keys(commands) as TargetCommandType[]) {
        const allowed = targetTransitions[status].includes(type);
        it(`${status}: ${type} is ${allowed ? 'accepted' : `refused (${refusals[type]})`}`, () => {
          expect(fold(targetDecider, histories[status]).status).to.equal(status);
          if (allowed) expect(targetDecider.decide(commands[type], fold(targetDecider, histories[status]))).to.have.length(1);
          else spec.given(histories[status]).when(commands[type]).thenRefused(refusals[type]);
        });
      }
    }
  });
});
