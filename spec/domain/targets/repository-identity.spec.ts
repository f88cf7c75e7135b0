import { expect } from 'chai';
import {
  normaliseBranch, normaliseSubPath, repositoryIdentity, uniquenessKey, validateRepositoryUrl,
} from '../../../domain/targets/repository-identity';
import { refusal } from '../../support/decider-spec';

describe('repository identity', () => {
  it('[S1.2.1-33] https://Git.Example/Org/Repo.git/ and ssh://git@git.example:22/org/repo name one repository', () => {
    expect(repositoryIdentity('https://Git.Example/Org/Repo.git/')).to.equal('git.example/org/repo');
    expect(repositoryIdentity('ssh://git@git.example:22/org/repo')).to.equal('git.example/org/repo');
  });

  const sameRepository = [
    'https://git.example/org/repo',
    'http://git.example/org/repo',
    'https://GIT.EXAMPLE/ORG/REPO',
    'https://git.example/org/repo/',
    'https://git.example/org/repo.git',
    'https://git.example/org/repo.git//',
    'https://git.example:8443/org/repo',
    'https://alice@git.example/org/repo.git',
    'ssh://git@git.example/org/repo.git',
    'ssh://git@git.example:2222/org/repo',
    'git+ssh://git@git.example/org/repo',
    'git://git.example/org/repo.git',
    'git@git.example:org/repo.git',
    'git@git.example:/org/repo',
    'git.example:org/repo',
    '  https://git.example/org/repo  ',
  ];
  for (const url of sameRepository) {
    it(`[S1.2.1-33] ${JSON.stringify(url)} has identity git.example/org/repo`, () => {
      expect(repositoryIdentity(url)).to.equal('git.example/org/repo');
    });
  }

  it('[S1.2.1-33] different hosts or paths stay different repositories', () => {
    const identities = ['https://git.example/org/repo', 'https://git.example/org/repo2', 'https://other.example/org/repo', 'https://git.example/team/org/repo']
      .map(repositoryIdentity);
    expect(new Set(identities).size).to.equal(4);
  });

  it('[S1.2.1-33] only one trailing .git is removed, and only at the end', () => {
    expect(repositoryIdentity('https://h.example/org/repo.git.git')).to.equal('h.example/org/repo.git');
    expect(repositoryIdentity('https://h.example/org.git/repo')).to.equal('h.example/org.git/repo');
  });

  it('keeps an IPv6 host and a file:// path', () => {
    expect(repositoryIdentity('https://[::1]:8080/org/repo')).to.equal('[::1]/org/repo');
    expect(repositoryIdentity('file:///srv/git/Repo.git')).to.equal('/srv/git/repo');
  });

  const garbage: [string, unknown, RegExp][] = [
    ['empty', '', /required/],
    ['not a string', 42, /required/],
    ['words', 'not a url', /spaces/],
    ['no host or colon', 'repository', /not a repository URL/],
    ['unsupported scheme', 'ftp://h.example/org/repo', /scheme "ftp"/],
    ['no path', 'https://h.example/', /no repository path/],
    ['only .git', 'https://h.example/.git', /no repository path/],
    ['no host', 'https:///org/repo', /no host/],
    ['no ssh host', 'ssh:///org/repo', /no host/],
    ['one slash after the scheme', 'https:/h.example/org/repo', /not a repository URL/],
    ['option-looking host', 'ssh://-oProxyCommand=evil/x', /host/],
    ['option-looking scp url', '-oProxyCommand=evil:x', /not a repository URL/],
    ['password in the URL', 'https://bob:s3cret@h.example/org/repo', /password/],
    ['query string', 'https://h.example/org/repo?ref=x', /query/],
    ['backslash', 'https://h.example/org\\repo', /backslash/],
    ['control character', 'https://h.example/org/re\u0000po', /control/],
    ['too long', `https://h.example/${'a'.repeat(2100)}`, /longer/],
  ];
  for (const [why, url, detail] of garbage) {
    it(`refuses (400) ${why}`, () => {
      const error = refusal(() => validateRepositoryUrl(url));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.match(detail);
    });
  }

  it('validateRepositoryUrl answers the URL trimmed but otherwise as given (it is what gets cloned)', () => {
    expect(validateRepositoryUrl('  https://Git.Example/Org/Repo.git ')).to.equal('https://Git.Example/Org/Repo.git');
  });
});

describe('branch and sub-path', () => {
  it('branch defaults to main when absent or blank', () => {
    expect(normaliseBranch(undefined)).to.equal('main');
    expect(normaliseBranch(null)).to.equal('main');
    expect(normaliseBranch('  ')).to.equal('main');
    expect(normaliseBranch('release/1.2')).to.equal('release/1.2');
  });

  for (const branch of ['-upload-pack=x', 'a..b', 'a b', 'x.lock', 'a//b', 'a@{1}', 'feature/', '.hidden', 'a~1', 'a:b']) {
    it(`refuses branch ${JSON.stringify(branch)}`, () => {
      expect(refusal(() => normaliseBranch(branch)).kind).to.equal('invalid');
    });
  }

  it('sub-path: root is "", slashes and "." segments do not make another sub-path', () => {
    for (const root of [undefined, null, '', '/', '.', './', ' / ']) expect(normaliseSubPath(root)).to.equal('');
    for (const src of ['services/api', '/services/api/', './services//api', 'services/./api/']) expect(normaliseSubPath(src)).to.equal('services/api');
  });

  it('sub-path refuses ".." and backslashes', () => {
    expect(refusal(() => normaliseSubPath('../etc')).message).to.match(/inside the repository/);
    expect(refusal(() => normaliseSubPath('a/../../b')).kind).to.equal('invalid');
    expect(refusal(() => normaliseSubPath('a\\b')).kind).to.equal('invalid');
  });
});

describe('uniqueness key', () => {
  const identity = repositoryIdentity('https://git.example/org/repo');

  it('[S1.2.1-34] is the same for the same (identity, branch, sub-path), whatever the URL spelling', () => {
    const other = repositoryIdentity('git@GIT.example:org/repo.git');
    expect(uniquenessKey(other, 'main', normaliseSubPath('/svc/'))).to.equal(uniquenessKey(identity, 'main', 'svc'));
  });

  it('[S1.2.1-35] differs for another branch or another sub-path', () => {
    const keys = [uniquenessKey(identity, 'main', ''), uniquenessKey(identity, 'develop', ''), uniquenessKey(identity, 'main', 'svc')];
    expect(new Set(keys).size).to.equal(3);
  });

  it('is short and stable: 64 hex characters, pinned so that stream names never drift', () => {
    expect(uniquenessKey('git.example/org/repo', 'main', '')).to.match(/^[0-9a-f]{64}$/);
    expect(uniquenessKey('git.example/org/repo', 'main', '')).to.equal('e4646a0b6ad635b2662b500c2ee7e29214495a3e6ab94bef07565f5264ba1a9f');
    // The NUL separator keeps ("a/b", "c") apart from ("a", "b/c")-like shifts between parts.
    expect(uniquenessKey('h/a', 'b', 'c')).not.to.equal(uniquenessKey('h/a', 'b/c', ''));
  });
});
