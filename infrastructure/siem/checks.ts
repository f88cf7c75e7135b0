import { X509Certificate } from 'node:crypto';
import { refuse } from '../../domain/shared/decider';
import { endpointHost, SiemProtocol } from '../../domain/siem/endpoint';
import type { SiemChecks } from '../../application/siem/siem-service';
import { checkHost, DestinationRefused } from './destination-guard';

/** tlsCaPem: at most 16,384 characters and 8 certificates (spec 2 §8), each one parsing as X.509. */
export const CA_MAX_CHARACTERS = 16384;
export const CA_MAX_CERTIFICATES = 8;
const BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;

export const siemChecks: SiemChecks = {
  caBundle(pem) {
    if (pem.length > CA_MAX_CHARACTERS) throw refuse.invalid(`tlsCaPem holds at most ${CA_MAX_CHARACTERS} characters.`);
    const blocks = pem.match(BLOCK) ?? [];
    const rest = pem.replace(BLOCK, '').trim();
    if (blocks.length === 0 || rest !== '') throw refuse.invalid('tlsCaPem is one or more PEM certificates (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----) and nothing else.');
    if (blocks.length > CA_MAX_CERTIFICATES) throw refuse.invalid(`tlsCaPem holds at most ${CA_MAX_CERTIFICATES} certificates; it holds ${blocks.length}.`);
    blocks.forEach((b, i) => {
      try {
        // eslint-disable-next-line no-new
        new X509Certificate(b);
      } catch {
        throw refuse.invalid(`Certificate ${i + 1} of tlsCaPem does not parse as X.509.`);
      }
    });
    return `${blocks.map((b) => b.replace(/\r\n/g, '\n')).join('\n')}\n`;
  },
  destinationOnSave(protocol: SiemProtocol, endpoint: string, allowPrivate: boolean) {
    let host: string;
    try {
      host = endpointHost(protocol, endpoint);
    } catch (error) {
      throw error;
    }
    try {
      checkHost(host, allowPrivate);
    } catch (error) {
      if (error instanceof DestinationRefused) throw refuse.invalid(error.message);
      throw error;
    }
  },
};
