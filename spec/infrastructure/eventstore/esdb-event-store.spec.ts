import * as chai from 'chai';
import { EsdbEventStore } from '../../../infrastructure/eventstore/esdb-event-store';
import chaiAsPromised from '../../support/chai-as-promised';
import { eventStoreContract } from './contract';

chai.use(chaiAsPromised);

/**
 * The same contract against EventStoreDB / KurrentDB. No server can run on the build machines,
 * so this suite runs only where VIGIL_TEST_EVENTSTORE_URL names one
 * (e.g. esdb://localhost:2113?tls=false); elsewhere it says so and is skipped.
 */
const url = process.env.VIGIL_TEST_EVENTSTORE_URL;

describe('EventStoreDB event store contract', function () {
  if (!url) {
    it('needs VIGIL_TEST_EVENTSTORE_URL (no EventStoreDB server runs here)');
    return;
  }
  const stores: EsdbEventStore[] = [];
  after(async () => { for (const s of stores) await s.close(); });
  eventStoreContract(() => {
    const store = new EsdbEventStore(url);
    stores.push(store);
    return store;
  }, { atomicMultiStream: false });
});
