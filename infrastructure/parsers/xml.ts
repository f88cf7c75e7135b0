import { SaxesParser } from 'saxes';
import { ImportRefusal } from '../../domain/imports/import-refusal';
import { refuse } from './import-refusal';
import { describeControl } from '../../domain/shared/text';
import { decodeXmlText } from './text';

/**
 * The single XML reader behind the coverage and test-report parsers (spec §4.3, S1.4.3-38:
 * "readers load no DTD and resolve no entity").
 *
 * saxes never fetches a DTD and only knows the five predefined entities plus character
 * references; a reference to anything else is a well-formedness error. On top of that, a DOCTYPE
 * that declares entities (internal subset with <!ENTITY, or a parameter-entity reference such as
 * %remote;) is refused outright: that is the shape of XXE and "billion laughs" documents, and no
 * coverage or test tool writes one. A plain DOCTYPE naming an external DTD (JaCoCo writes
 * `<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">`) is accepted and ignored.
 */

export type XmlAttributes = Readonly<Record<string, string>>;

export interface XmlHandler {
  /** An element opens; depth is 0 for the root element; line is where its tag ends (to name it in a refusal). */
  open(name: string, attributes: XmlAttributes, depth: number, line: number): void;
  /** The element closes (self-closing elements close at once). */
  close?(name: string, depth: number): void;
}

const ENTITY_DECLARATION = /<!ENTITY|%[^\s;%"'<>]+;/i;

export function readXml(body: Buffer | string, what: string, handler: XmlHandler): void {
  const text = decodeXmlText(body, what);
  // position tracking stays on: a person fixing a broken report needs the line and column.
  const parser = new SaxesParser({ xmlns: false });
  let depth = 0;
  parser.on('doctype', (doctype) => {
    if (ENTITY_DECLARATION.test(doctype)) {
      refuse(`The ${what} declares entities in its DOCTYPE; entities are never resolved, so the document is refused.`);
    }
  });
  parser.on('opentag', (tag) => {
    handler.open(tag.name, tag.attributes as Record<string, string>, depth, parser.line);
    depth++;
  });
  parser.on('closetag', (tag) => {
    depth--;
    handler.close?.(tag.name, depth);
  });
  parser.on('error', (err) => {
    // saxes messages look like "11:3: unexpected end." (line:column: reason).
    const m = /^(\d+):(\d+): (.*)$/s.exec(err.message);
    if (m && /disallowed character/.test(m[3])) refuseControl(text, what);
    const where = m ? `line ${m[1]}, column ${m[2]}: ${m[3].replace(/\.$/, '')}` : err.message;
    refuse(`The ${what} is not well-formed XML (${where}).`);
  });
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof ImportRefusal) throw err;
    // A handler or saxes itself failing in an unexpected way still means: not readable.
    refuse(`The ${what} could not be read as XML (${(err as Error).message}).`);
  }
}

/** A non-negative integer attribute, or null when absent; anything else refuses the document. */
export function intAttribute(attributes: XmlAttributes, name: string, what: string): number | null {
  const raw = attributes[name];
  if (raw === undefined || raw.trim() === '') return null;
  if (!/^\s*\d+\s*$/.test(raw)) refuse(`The ${what} has ${name}="${raw}", which is not a whole non-negative number.`);
  return Number(raw);
}

// eslint-disable-next-line no-control-regex
const XML_FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/**
 * XML 1.0 forbids C0 controls but tab, LF and CR anywhere in a document, so saxes stops at one with
 * "disallowed character". A person fixing the report needs to know which value holds it: the
 * attribute and element (or the element whose text) around the first one, and where.
 */
function refuseControl(text: string, what: string): void {
  const m = XML_FORBIDDEN_CONTROL.exec(text);
  if (!m) return;
  const before = text.slice(0, m.index);
  const line = before.split('\n').length;
  const column = m.index - before.lastIndexOf('\n');
  const open = before.lastIndexOf('<');
  const tag = open < 0 ? '' : before.slice(open);
  const element = /^<([^\s/>!?]+)/.exec(tag)?.[1];
  const insideTag = open >= 0 && !tag.includes('>');
  const attribute = insideTag ? /([^\s=<>"']+)\s*=\s*["'][^"']*$/.exec(tag)?.[1] : undefined;
  const where = attribute && element ? `the ${attribute} attribute of <${element}>` : element && !insideTag ? `the text of <${element}>` : 'the document';
  refuse(`The ${what} holds ${describeControl(m[0])} in ${where} (line ${line}, column ${column}); XML does not allow it, so the document is refused.`);
}
