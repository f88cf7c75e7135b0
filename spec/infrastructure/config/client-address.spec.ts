import { expect } from 'chai';
import { clientAddress, failureBucket, ipAddress } from '../../../interfaces/http/client-address';

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

describe('X-Forwarded-For entries that are not IP addresses (issue #17)', () => {
  it('skips them and keeps the rightmost-untrusted rule for the valid entries', () => {
    const junk = 'x'.repeat(100);
    expect(clientAddress('127.0.0.1', junk, ['127.0.0.1'])).to.equal('127.0.0.1');
    expect(clientAddress('127.0.0.1', `198.51.100.7, ${junk}`, ['127.0.0.1'])).to.equal('198.51.100.7');
    expect(clientAddress('10.0.0.2', `198.51.100.7, <script>, 203.0.113.5, unknown, 10.0.0.9`, ['10.0.0.0/8'])).to.equal('203.0.113.5');
    expect(clientAddress('127.0.0.1', '127.1, 0x7f.0.0.1, 1', ['127.0.0.1'])).to.equal('127.0.0.1');
  });

  it('reads the forms proxies write: IPv6, IPv4-mapped IPv6, a port, a zone dropped', () => {
    expect(ipAddress('2001:DB8::1')).to.equal('2001:db8::1');
    expect(ipAddress('::ffff:192.0.2.1')).to.equal('192.0.2.1');
    expect(ipAddress('192.0.2.1:4711')).to.equal('192.0.2.1');
    expect(ipAddress('[2001:db8::1]:4711')).to.equal('2001:db8::1');
    expect(ipAddress('fe80::1%eth0')).to.equal('fe80::1');
    for (const bad of ['', 'unknown', '999.1.1.1', '01.2.3.4', '1.2.3', '2001:db8::1::2', '_hidden']) expect(ipAddress(bad), bad).to.equal(null);
  });
});
