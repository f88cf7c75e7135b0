import { expect } from 'chai';
import { clientAddress, failureBucket } from '../../../interfaces/http/client-address';

describe('Client address believed', () => {
  it('[S1.8.3-06] ignores X-Forwarded-For without trusted proxies', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', [])).to.equal('203.0.113.9');
  });

  it('[S1.8.3-07] believes the rightmost X-Forwarded-For entry the trusted list does not name', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.7, 203.0.113.5, 10.0.0.9', ['10.0.0.0/8'])).to.equal('203.0.113.5');
    expect(clientAddress('192.0.2.1', '198.51.100.7', ['192.0.2.1'])).to.equal('198.51.100.7');
  });

  it('ignores the header when the socket peer is not a trusted proxy (it could be forged)', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', ['10.0.0.0/8'])).to.equal('203.0.113.9');
  });

  it('[S1.5-03] counts IPv6 failures per /64 and IPv4 per address', () => {
    expect(failureBucket('2001:db8:1:2:aaaa::1')).to.equal(failureBucket('2001:db8:1:2:bbbb::9'));
    expect(failureBucket('2001:db8:1:3::1')).not.to.equal(failureBucket('2001:db8:1:2::1'));
    expect(failureBucket('192.0.2.4')).to.equal('192.0.2.4');
  });
});
