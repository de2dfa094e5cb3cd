import type { INodeParameters } from 'n8n-workflow';

import type { Sandbox, SandboxOptions } from '../../../sandbox';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, type Engine } from '../../harness/engine';
import { PollHarness } from '../../harness/poll';
import { ApiTestClient, startTestSandbox } from '../../sandbox/helpers';

/** A sandbox per test and the engine once per file, for the Poll Trigger's engine tests. */
export function pollTriggerSetup(sandboxOptions: SandboxOptions = {}) {
	const env = {} as { engine: Engine; sandbox: Sandbox; api: ApiTestClient };

	beforeAll(async () => {
		env.engine = await loadEngine();
	});
	beforeEach(async () => {
		env.sandbox = await startTestSandbox({ finalizeAfterMs: null, ...sandboxOptions });
		env.api = new ApiTestClient(env.sandbox);
		env.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(env.sandbox.info));
	});
	afterEach(async () => {
		await env.sandbox.close();
	});

	return {
		env,
		poller: (parameters: INodeParameters = {}) => new PollHarness(env.engine, { parameters }),
		requestsTo: async (slug: string) => (await env.sandbox.control.counters()).requests[slug] ?? 0,
	};
}
