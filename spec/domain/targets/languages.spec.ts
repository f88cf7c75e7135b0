import { expect } from 'chai';
import {
  DETECTED_LANGUAGES, languagesRecordedByScan, normaliseDetectedLanguages, projectLanguages,
} from '../../../domain/targets/languages';

describe('detected languages', () => {
  it('[S1.2.1-21] the vocabulary is exactly the 24 languages of spec 1 §2.1, sorted', () => {
    expect([...DETECTED_LANGUAGES]).to.deep.equal([
      'apex', 'bash', 'c', 'clojure', 'csharp', 'dockerfile', 'elixir', 'go', 'html', 'java', 'javascript', 'json',
      'kotlin', 'ocaml', 'php', 'python', 'ruby', 'rust', 'scala', 'solidity', 'swift', 'terraform', 'typescript', 'yaml',
    ]);
    expect([...DETECTED_LANGUAGES]).to.deep.equal([...DETECTED_LANGUAGES].sort());
  });

  it('[S1.2.1-15] a completed scan\'s languages are stored sorted and unique', () => {
    expect(normaliseDetectedLanguages(['yaml', 'go', 'typescript', 'go'], false)).to.deep.equal(['go', 'typescript', 'yaml']);
  });

  it('[S1.2.1-21] words outside the vocabulary are dropped; case and common aliases are folded', () => {
    expect(normaliseDetectedLanguages(['TypeScript', 'C#', 'shell', 'HCL', 'cobol', 'Markdown', 'yml'], false))
      .to.deep.equal(['bash', 'csharp', 'terraform', 'typescript', 'yaml']);
  });

  it('[S1.2.1-16] [S1.2.1-17] no count at all (no completed scan, or an older scan) is unknown: null', () => {
    expect(normaliseDetectedLanguages(null, false)).to.equal(null);
    expect(normaliseDetectedLanguages(undefined, false)).to.equal(null);
  });

  it('[S1.2.1-18] a count that stopped at its bound is unknown: null, even with languages found', () => {
    expect(normaliseDetectedLanguages(['go', 'rust'], true)).to.equal(null);
  });

  it('[S1.2.1-19] a scan that found no language gives [], not null', () => {
    expect(normaliseDetectedLanguages([], false)).to.deep.equal([]);
    expect(normaliseDetectedLanguages(['cobol'], false)).to.deep.equal([]);
  });

  it('[S1.2.1-22] a container-image scan records no language', () => {
    expect(languagesRecordedByScan('container', ['dockerfile', 'go'], false)).to.equal(null);
    expect(languagesRecordedByScan('repository', ['go'], false)).to.deep.equal(['go']);
  });

  it('[S1.2.1-23] [S1.2.1-24] a project shows the sorted union and the ids whose languages are unknown', () => {
    expect(projectLanguages([
      { id: 9, detectedLanguages: null },
      { id: 1, detectedLanguages: ['python', 'yaml'] },
      { id: 4, detectedLanguages: [] },
      { id: 3, detectedLanguages: ['go', 'python'] },
      { id: 2, detectedLanguages: null },
    ])).to.deep.equal({ detectedLanguages: ['go', 'python', 'yaml'], languagesUnknownFor: [2, 9] });
    expect(projectLanguages([])).to.deep.equal({ detectedLanguages: [], languagesUnknownFor: [] });
  });
});
