import { signWebhook } from '../../../sandbox/domain/webhooks';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, type Engine } from '../../harness/engine';
import { postRaw, WebhookHarness } from '../../harness/webhook';
import type { Sandbox } from '../../../sandbox';
import { startTestSandbox } from '../../sandbox/helpers';

/** What the Money Trigger's delivery tests share: the engine and sandbox, harnesses, signed events. */

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export interface Answer {
	status: number;
	body: string;
	retryAfter?: string | null;
}

export interface DeliverySuite {
	readonly engine: Engine;
	readonly sandbox: Sandbox;
	/** A harness (by default a trigger followed by a No Operation node) listening and activated, closed after the test. */
	open(harness?: WebhookHarness): Promise<WebhookHarness>;
	/** A charge event's body. */
	event(id: string, reference?: string, status?: string): string;
	/** The body signed (request-style) and posted to the harness. */
	post(harness: WebhookHarness, body: string, signal?: AbortSignal): Promise<Answer>;
	/** The ids of the events the harness's executions ran, in order. */
	ran(harness: WebhookHarness): unknown[];
}

/** Registers the suite's hooks (call it inside `describe`). */
export function deliverySuite(): DeliverySuite {
	let engine: Engine | undefined;
	let sandbox: Sandbox | undefined;
	const harnesses: WebhookHarness[] = [];

	beforeAll(async () => {
		engine = await loadEngine();
		sandbox = await startTestSandbox({ finalizeAfterMs: null });
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
	});
	afterEach(async () => {
		// A test that timed out never reached its own restore of a mocked clock.
		jest.restoreAllMocks();
		for (const harness of harnesses.splice(0)) await harness.close();
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	const suite: DeliverySuite = {
		get engine() {
			return engine as Engine;
		},
		get sandbox() {
			return sandbox as Sandbox;
		},
		async open(harness = new WebhookHarness(suite.engine, { downstream: true, parameters: { resources: [], statuses: [] } })) {
			harnesses.push(harness);
			await harness.listen();
			await harness.activate();
			return harness;
		},
		event(id, reference = `chg_${id}`, status = 'COMPLETED') {
			return JSON.stringify({
				id,
				event: `charge.${status.toLowerCase()}`,
				created_at: new Date().toISOString(),
				data: { reference, type: 'charge', status: { code: 1, label: status }, amount: { value: 100, currency: 'XOF' }, channel: 'psp-a-tg' },
			});
		},
		async post(harness, body, signal) {
			const headers = signWebhook({ url: harness.url, scheme: 'request-style', secret: suite.sandbox.info.webhookSecret }, body, nowSeconds());
			if (!signal) return await postRaw(harness.url, headers, body);
			const res = await fetch(harness.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal });
			return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
		},
		ran: (harness) => harness.executions.map((run) => run.output(harness.node.name)[0]?.json.id),
	};
	return suite;
}
