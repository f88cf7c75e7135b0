import { expect } from 'chai';
import { SaxesParser } from 'saxes';
import { renderBadgeSvg, escapeXml } from '../../../domain/scorecards/badge';
import { ALL_GRADES, type Grade } from '../../../domain/scorecards/grades';

/** Parses the document with a real XML parser; returns the root's name and its text content. */
function parse(xml: string): { root: string; namespace: string; text: string } {
  const parser = new SaxesParser({ xmlns: true });
  let root = '';
  let namespace = '';
  let text = '';
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    if (!root) {
      root = tag.local ?? tag.name;
      namespace = tag.uri ?? '';
    }
  });
  parser.on('text', (chunk) => {
    text += chunk;
  });
  parser.write(xml).close();
  return { root, namespace, text };
}

describe('scorecards: the public badge', () => {
  for (const grade of ALL_GRADES) {
    it(`[S1.2.9-16] the ${grade} badge is well-formed SVG showing the letter only, no number`, () => {
      const svg = renderBadgeSvg(grade);
      const { root, namespace, text } = parse(svg);
      expect(root).to.equal('svg');
      expect(namespace).to.equal('http://www.w3.org/2000/svg');
      expect(text).to.not.match(/\d/);
      const shown = /<text[^>]*>([^<]*)<\/text>/.exec(svg)?.[1];
      expect(shown).to.equal(grade === 'NO_DATA' ? '?' : grade);
      expect(svg.length).to.be.lessThan(1024);
    });
  }

  it('[S1.4.6-02] a grade it does not know renders as NO_DATA, never echoing the text', () => {
    const svg = renderBadgeSvg('<script>1</script>' as Grade);
    expect(svg).to.equal(renderBadgeSvg('NO_DATA'));
    expect(escapeXml(`<a href="x">'&'</a>`)).to.equal('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });
});
