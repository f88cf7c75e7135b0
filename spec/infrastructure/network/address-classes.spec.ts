import { expect } from 'chai';
import { alwaysRefused, classifyAddress, describeAddress, readAddress } from '../../../infrastructure/network/address-classes';

const read = (address: string) => {
  const reading = readAddress(address);
  expect(reading, address).to.not.equal(null);
  return reading!;
};

describe('Address classes (infrastructure/network/address-classes.ts), shared by the clone guard and the feeds', () => {
  it('classifies IPv4: public, private, loopback, link-local, reserved special-purpose ranges', () => {
    const cases: Array<[string, string]> = [
      ['8.8.8.8', 'public'], ['140.82.112.3', 'public'], ['169.253.255.255', 'public'], ['192.0.1.1', 'public'], ['192.1.0.1', 'public'],
      ['10.0.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'], ['100.64.0.1', 'private'],
      ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'],
      ['169.254.0.1', 'link-local'], ['169.254.255.255', 'link-local'],
      ['0.0.0.0', 'reserved'], ['0.1.2.3', 'reserved'], ['192.0.0.0', 'reserved'], ['192.0.0.8', 'reserved'], ['192.0.0.170', 'reserved'], ['192.0.0.255', 'reserved'],
      ['192.0.2.1', 'reserved'], ['198.51.100.1', 'reserved'], ['203.0.113.1', 'reserved'], ['198.18.0.1', 'reserved'], ['224.0.0.1', 'reserved'],
      ['240.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).to.equal(kind);
  });

  it('classifies IPv6 of its own: public, unique local, loopback, link-local, reserved', () => {
    const cases: Array<[string, string]> = [
      ['2606:4700::6810:1', 'public'], ['2a00:1450:4001::200e', 'public'],
      ['fc00::1', 'private'], ['fd12:3456::1', 'private'], ['::1', 'loopback'], ['fe80::1', 'link-local'], ['febf::1', 'link-local'],
      ['::', 'reserved'], ['ff02::1', 'reserved'], ['2001:db8::1', 'reserved'], ['fec0::1', 'reserved'], ['100::1', 'reserved'], ['2001:2::1', 'reserved'],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).to.equal(kind);
  });

  it('judges each IPv6 form carrying an IPv4 address by that address', () => {
    const cases: Array<[string, string, string, string]> = [
      ['::ffff:169.254.169.254', 'IPv4-mapped', '169.254.169.254', 'link-local'],
      ['::ffff:a9fe:a9fe', 'IPv4-mapped', '169.254.169.254', 'link-local'],
      ['::ffff:8.8.8.8', 'IPv4-mapped', '8.8.8.8', 'public'],
      ['::ffff:0:a9fe:a9fe', 'IPv4-translated', '169.254.169.254', 'link-local'],
      ['::a9fe:a9fe', 'IPv4-compatible', '169.254.169.254', 'link-local'],
      // Written "::10.0.0.1", ipaddr.js reads it as mapped; URLs and resolvers give the hex form. Either way 10.0.0.1 is judged.
      ['::a00:1', 'IPv4-compatible', '10.0.0.1', 'private'],
      ['::808:808', 'IPv4-compatible', '8.8.8.8', 'public'],
      ['64:ff9b::a9fe:a9fe', 'NAT64', '169.254.169.254', 'link-local'],
      ['64:ff9b::a00:1', 'NAT64', '10.0.0.1', 'private'],
      ['64:ff9b::808:808', 'NAT64', '8.8.8.8', 'public'],
      ['64:ff9b:1::a9fe:a9fe', 'NAT64 local-use', '169.254.169.254', 'link-local'],
      // RFC 6052 /48 layout: the IPv4 bytes around the u octet.
      ['64:ff9b:1:a9fe:a9:fe00::', 'NAT64 local-use', '169.254.169.254', 'link-local'],
      ['64:ff9b:1::808:808', 'NAT64 local-use', '8.8.8.8', 'public'],
      ['2002:a9fe:a9fe::', '6to4', '169.254.169.254', 'link-local'],
      ['2002:a9fe:a9fe:1::5', '6to4', '169.254.169.254', 'link-local'],
      ['2002:c0a8:0101::1', '6to4', '192.168.1.1', 'private'],
      ['2002:7f00:1::', '6to4', '127.0.0.1', 'loopback'],
      ['2002:808:808::1', '6to4', '8.8.8.8', 'public'],
      // Teredo: the server in bits 32-63, the client the last 32 bits inverted (RFC 4380 example: 192.0.2.45).
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (client)', '192.0.2.45', 'reserved'],
      ['2001:0:4136:e378:8000:63bf:5601:5601', 'Teredo (client)', '169.254.169.254', 'link-local'],
      ['2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', 'Teredo (server)', '169.254.169.254', 'link-local'],
      ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo (server)', '65.54.227.120', 'public'],
    ];
    for (const [address, form, ipv4, kind] of cases) {
      const reading = read(address);
      expect(reading.carried, address).to.deep.equal({ form, ipv4 });
      expect(reading.class, address).to.equal(kind);
    }
  });

  it('flags cloud metadata addresses, directly or carried: 169.254.169.254, 169.254.170.2, fd00:ec2::254, 100.100.100.200, 168.63.129.16, 192.0.0.192', () => {
    for (const address of [
      '169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16', '192.0.0.192',
      '::ffff:169.254.169.254', '::a9fe:a9fe', '::ffff:0:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '2002:a9fe:a9fe::',
      '2001:0:4136:e378:8000:63bf:5601:5601', '::ffff:100.100.100.200', '2002:a83f:8110::', '::ffff:c000:c0',
    ]) {
      expect(read(address).metadata, address).to.equal(true);
    }
    for (const address of ['169.254.169.253', 'fd00:ec2::253', '168.63.129.17', '192.0.0.191', '8.8.8.8']) expect(read(address).metadata, address).to.equal(false);
  });

  it('no guard lets through link-local, cloud metadata or reserved addresses; private, loopback and public are left to each guard', () => {
    for (const address of ['169.254.1.1', 'fe80::1', '168.63.129.16', 'fd00:ec2::254', '192.0.0.192', '192.0.0.9', '0.0.0.0', '::', 'ff02::1', '2002:a9fe:a9fe::', '::a9fe:a9fe']) {
      expect(alwaysRefused(read(address)), address).to.equal(true);
    }
    for (const address of ['10.0.0.1', '127.0.0.1', '::1', 'fd12::1', '8.8.8.8', '::ffff:10.0.0.1', '2002:808:808::']) expect(alwaysRefused(read(address)), address).to.equal(false);
  });

  it('describes an address for a refusal, naming the form and the IPv4 address it carries', () => {
    expect(describeAddress(read('169.254.169.254'))).to.equal('a cloud metadata address (link-local)');
    expect(describeAddress(read('168.63.129.16'))).to.equal('a cloud metadata address');
    expect(describeAddress(read('192.0.0.8'))).to.equal('a reserved address (IETF protocol assignments)');
    expect(describeAddress(read('10.0.0.1'))).to.equal('a private address');
    expect(describeAddress(read('2002:a9fe:a9fe::'))).to.equal('the 6to4 form of 169.254.169.254, a cloud metadata address (link-local)');
  });

  it('reads text that is no address as null (classified reserved)', () => {
    expect(readAddress('git.example.com')).to.equal(null);
    expect(readAddress('999.1.1.1')).to.equal(null);
    expect(classifyAddress('not an address')).to.equal('reserved');
  });
});
