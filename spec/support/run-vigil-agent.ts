import { main } from '../../interfaces/cli/vigil-agent';

/**
 * The vigil-agent program as a child process of a spec: its own main(), with the scanner images the
 * spec names (VIGIL_SPEC_SCANNER_IMAGES, JSON by step): the stand-in images carry no digest, which
 * VIGIL_IMAGE_* requires, so they come in as the executor specs give them. Nothing else differs.
 */
const images = process.env.VIGIL_SPEC_SCANNER_IMAGES ? JSON.parse(process.env.VIGIL_SPEC_SCANNER_IMAGES) : undefined;
main(process.argv.slice(2), process.env, { images }).then((code) => process.exit(code), (error) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
