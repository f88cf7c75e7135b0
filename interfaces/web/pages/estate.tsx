import type { PageProps } from '.';
import { Page } from '../ui';

export function Estate(_: PageProps) {
  return <Page title="Estate"><p>The estate.</p></Page>;
}
