import { expect } from 'chai';
import { effectiveScopes, Role, Scope, scopesAllowedFor, SCOPES } from '../../../domain/identity/roles';

describe('A key\'s effective scopes (issue #17)', () => {
  const all = [...SCOPES] as Scope[];

  it('keeps the key\'s scopes its account\'s roles may hold, by the rule of issue, and names the others', () => {
    expect(effectiveScopes(all, ['administrator'])).to.deep.equal({ held: all, withdrawn: [] });
    expect(effectiveScopes(all, ['writer'])).to.deep.equal({ held: ['scan', 'read', 'report_import', 'sarif_import'], withdrawn: ['agent'] });
    expect(effectiveScopes(all, ['reader'])).to.deep.equal({ held: ['read'], withdrawn: ['scan', 'report_import', 'sarif_import', 'agent'] });
    expect(effectiveScopes(all, ['auditor'])).to.deep.equal({ held: ['read'], withdrawn: ['scan', 'report_import', 'sarif_import', 'agent'] });
    expect(effectiveScopes(all, ['platform_governor'])).to.deep.equal({ held: ['read', 'report_import', 'sarif_import'], withdrawn: ['scan', 'agent'] });
    expect(effectiveScopes(all, ['writer', 'auditor']).withdrawn).to.deep.equal(['report_import', 'sarif_import', 'agent']);
  });

  it('never holds more than the account may put on a new key', () => {
    const roles: Role[][] = [['administrator'], ['ciso'], ['security_lead'], ['platform_governor'], ['auditor'], ['writer'], ['reader'], ['writer', 'auditor']];
    for (const r of roles) {
      const allowed = scopesAllowedFor(r);
      expect(effectiveScopes(all, r).held.every((s) => allowed.has(s)), r.join()).to.equal(true);
      expect(effectiveScopes(all, r).held).to.have.length(allowed.size);
    }
  });
});
