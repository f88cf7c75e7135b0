// The modules themselves (not namespace copies), so that sinon can spy on their functions.
import fs = require('node:fs');
import http = require('node:http');
import https = require('node:https');
import net = require('node:net');
import { expect } from 'chai';
import * as sinon from 'sinon';
import { parseCoverage } from '../../infrastructure/parsers/coverage';
import { parseTestReport, readJUnitDocument } from '../../infrastructure/parsers/junit';
import { requireCorpus } from '../support/corpus';
import { expectRefusal, expectRefusalAsync, readCorpus } from './support';

const doc = (text: string): ReturnType<typeof readJUnitDocument> => readJUnitDocument(Buffer.from(text));

/** Runs fn and asserts it opened no socket and read no file (no DTD, no external entity). */
function withoutIo(fn: () => void): void {
  const sandbox = sinon.createSandbox();
  try {
    const spies = {
      connect: sandbox.spy(net.Socket.prototype, 'connect'),
      http: sandbox.spy(http, 'request'),
      https: sandbox.spy(https, 'request'),
      open: sandbox.spy(fs, 'openSync'),
      read: sandbox.spy(fs, 'readFileSync'),
    };
    fn();
    for (const [name, spy] of Object.entries(spies)) expect(spy.called, name).to.equal(false);
  } finally {
    sandbox.restore();
  }
}

describe('XML readers: no DTD loaded, no entity resolved', () => {
  it('[S1.4.3-38] an external entity on a local file is refused and never expanded', () => {
    withoutIo(() => {
      const e = expectRefusal(() => doc('<?xml version="1.0"?><!DOCTYPE testsuite [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&xxe;"/></testsuite>'), /declares entities/);
      expect(e.message).to.not.match(/root:/);
    });
  });

  it('[S1.4.3-38] an external entity on a URL is refused without any network access', () => {
    withoutIo(() => {
      expectRefusal(() => doc('<!DOCTYPE testsuite [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/x">]><testsuite><testcase name="&xxe;"/></testsuite>'), /declares entities/);
    });
  });

  it('[S1.4.3-38] a parameter entity (out-of-band exfiltration pattern) is refused', () => {
    withoutIo(() => {
      expectRefusal(() => doc('<!DOCTYPE r [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote;]><testsuite><testcase name="a"/></testsuite>'), /declares entities/);
    });
  });

  describe('corpus', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    it('[S1.4.3-38] junit/security__xxe-parameter-entity.xml is refused without resolving anything', async () => {
      const body = readCorpus('junit/security__xxe-parameter-entity.xml');
      withoutIo(() => {
        expectRefusal(() => readJUnitDocument(body), /declares entities/);
      });
      await expectRefusalAsync(() => parseTestReport(body, 'application/xml'), /declares entities/);
    });
  });

  it('[S1.4.3-38] billion laughs is refused at once, never expanded', () => {
    const levels = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= 9; i++) levels.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    const bomb = `<?xml version="1.0"?><!DOCTYPE testsuite [${levels.join('')}]><testsuite><testcase name="&lol9;"/></testsuite>`;
    const started = Date.now();
    expectRefusal(() => doc(bomb), /declares entities/);
    expectRefusal(() => parseCoverage('jacoco', Buffer.from(bomb.replace(/testsuite/g, 'report'))), /declares entities/);
    expect(Date.now() - started).to.be.below(1000);
  });

  it('[S1.4.3-38] a reference to an undeclared entity is refused, not passed through', () => {
    expectRefusal(() => doc('<testsuite><testcase name="&secret;"/></testsuite>'), /undefined entity/);
  });

  it('[S1.4.3-38] a DOCTYPE naming an external DTD is accepted and the DTD is never loaded', () => {
    withoutIo(() => {
      const figures = parseCoverage(
        'jacoco',
        Buffer.from('<?xml version="1.0"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="r"><counter type="LINE" missed="1" covered="1"/></report>'),
      );
      expect(figures.linesTotal).to.equal(2);
      expect(doc('<!DOCTYPE testsuite SYSTEM "http://127.0.0.1:9/junit.dtd"><testsuite><testcase name="a"/></testsuite>')).to.have.length(1);
    });
  });

  it('predefined entities and character references are still read', () => {
    expect(doc('<testsuite name="a &lt;b&gt; &amp; &#233;&#x1F600;"><testcase name="x"/></testsuite>')[0].name).to.equal('a <b> & é😀');
  });

  it('reads the encoding the XML declaration names, a UTF-16 byte-order mark, and refuses invalid UTF-8', () => {
    const latin1 = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><testsuite name="caf'), Buffer.from([0xe9]), Buffer.from('"><testcase name="x"/></testsuite>')]);
    expect(readJUnitDocument(latin1)[0].name).to.equal('café');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<testsuite name="u"><testcase name="x"/></testsuite>', 'utf16le')]);
    expect(readJUnitDocument(utf16)[0].name).to.equal('u');
    const broken = Buffer.concat([Buffer.from('<testsuite name="'), Buffer.from([0xc3, 0x28]), Buffer.from('"><testcase name="x"/></testsuite>')]);
    expectRefusal(() => readJUnitDocument(broken), /not valid UTF-8/);
    expectRefusal(() => readJUnitDocument(Buffer.from('<?xml version="1.0" encoding="x-no-such"?><testsuite/>')), /cannot be read/);
  });
});
