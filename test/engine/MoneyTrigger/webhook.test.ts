import type { INodeParameters } from 'n8n-workflow';

import type { Sandbox, WebhookScheme } from '../../../sandbox';
import { signWebhook } from '../../../sandbox/domain/webhooks';
import { CREDENTIAL_TYPE, credentialFromSandbox, CREDENTIAL_ID, loadEngine, type Engine } from '../../harness/engine';
import { findSecrets } from '../../harness/secrets';
import { postRaw, WebhookHarness, type WebhookHarnessOptions } from '../../harness/webhook';
import { ApiTestClient, startTestSandbox } from '../../sandbox/helpers';

const NO_SECRET_CREDENTIAL = 'money-credential-without-webhook-secret';

function nowSeconds(): number {
	return Math.floor(Date.now() / 1000);
}

describe('Money Trigger: sandbox webhooks over HTTP into a real n8n WebhookContext', () => {
	let engine: Engine;
	let sandbox: Sandbox;
	let api: ApiTestClient;
	const harnesses: WebhookHarness[] = [];

	beforeAll(async () => {
		engine = await loadEngine(['n8n-nodes-base.code']);
		sandbox = await startTestSandbox({ finalizeAfterMs: null });
		api = new ApiTestClient(sandbox);
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
		engine.credentials.set(
			NO_SECRET_CREDENTIAL,
			CREDENTIAL_TYPE,
			credentialFromSandbox(sandbox.info, { webhookSecret: '' }),
		);
	});

	afterEach(async () => {
		await sandbox.control.flushWebhooks();
		await sandbox.control.setWebhook(null);
		await sandbox.control.clearFaults();
		for (const harness of harnesses.splice(0)) await harness.close();
	});

	afterAll(async () => {
		await sandbox?.close();
	});

	async function trigger(
		parameters: INodeParameters = {},
		options: Omit<WebhookHarnessOptions, 'parameters'> & { scheme?: WebhookScheme; subscribe?: boolean } = {},
	): Promise<WebhookHarness> {
		const harness = new WebhookHarness(engine, { downstream: true, ...options, parameters });
		harnesses.push(harness);
		await harness.listen();
		await harness.activate();
		if (options.subscribe !== false) await sandbox.control.setWebhook(harness.url, options.scheme ?? 'request-style');
		return harness;
	}

	async function settle(reference: string, status: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'REVERSED') {
		await sandbox.control.setStatus(reference, status);
		await sandbox.control.flushWebhooks();
	}

	/** A correctly signed delivery of an arbitrary body, as only the secret's holder can make. */
	function signed(
		harness: WebhookHarness,
		body: string,
		options: { scheme?: WebhookScheme; secret?: string; timestamp?: number; url?: string } = {},
	): Record<string, string> {
		return signWebhook(
			{ url: options.url ?? harness.url, scheme: options.scheme ?? 'request-style', secret: options.secret ?? sandbox.info.webhookSecret },
			body,
			options.timestamp ?? nowSeconds(),
		);
	}

	async function envelopeOf(reference: string, resource: 'charge' | 'payout' = 'charge') {
		const response = await api.call('GET', `/money/v1/${resource}/${reference}`);
		return response.json.data;
	}

	function eventBody(id: string, event: string, data: unknown): string {
		return JSON.stringify({ id, event, created_at: new Date().toISOString(), data });
	}

	function triggerOutputs(harness: WebhookHarness) {
		return harness.executions.map((run) => run.output(harness.node.name)[0]?.json);
	}

	it('from version 2.1, refuses to be published when a node after it writes the workflow\'s static data, naming the node and what to do, but listens for a test event; version 2 (1.0.0\'s workflows) is published as before', async () => {
		const counter = "const data = $getWorkflowStaticData('global');\ndata.runs = (data.runs || 0) + 1;\nreturn $input.all();";
		const refused = new WebhookHarness(engine, { typeVersion: 2.1, downstream: counter });
		harnesses.push(refused);
		expect(await refused.checkExists()).toBe(false);
		await expect(refused.activate()).rejects.toThrow(
			'The node "After" writes the workflow\'s static data, which would erase the Money Trigger\'s memory of events: move what calls $getWorkflowStaticData into another workflow called with Execute Workflow, then publish again',
		);
		// Listening for a test event (Execute step): n8n saves no static data for a test run.
		const listening = new WebhookHarness(engine, { typeVersion: 2.1, downstream: counter, testMode: true });
		harnesses.push(listening);
		await expect(listening.activate()).resolves.toEqual({ existed: true });
		const saved = new WebhookHarness(engine, { typeVersion: 2, downstream: counter });
		harnesses.push(saved);
		await expect(saved.activate()).resolves.toEqual({ existed: true });
		const plain = new WebhookHarness(engine, { typeVersion: 2.1, downstream: 'return $input.all();' });
		harnesses.push(plain);
		await expect(plain.activate()).resolves.toEqual({ existed: true });
	});

	it('refuses to activate without a webhook secret; with one there is nothing to register, and activating writes no static data', async () => {
		const unconfigured = new WebhookHarness(engine, { credentialId: NO_SECRET_CREDENTIAL });
		harnesses.push(unconfigured);
		await unconfigured.listen();
		expect(await unconfigured.checkExists()).toBe(false);
		await expect(unconfigured.activate()).rejects.toThrow(/no Webhook Secret/);
		const refused = await postRaw(unconfigured.url, signed(unconfigured, '{"id":"evt_x"}'), '{"id":"evt_x"}');
		expect(refused.status).toBe(401);
		expect(unconfigured.counts().executions).toBe(0);

		const configured = new WebhookHarness(engine);
		harnesses.push(configured);
		await configured.listen();
		expect(await configured.checkExists()).toBe(true);
		expect(await configured.activate()).toEqual({ existed: true });
		expect(await configured.deactivate()).toBe(true);
		expect(await configured.activate()).toEqual({ existed: true });
		expect(configured.workflowStaticData).toEqual({});
	});

	it('runs the workflow once for a completed charge (request-style) and answers pending with 200 without a run', async () => {
		const harness = await trigger();
		const reference = await api.create('charge');
		await sandbox.control.flushWebhooks();
		expect(harness.counts()).toMatchObject({ received: 1, accepted: 1, executions: 0 });

		await settle(reference, 'COMPLETED');
		expect(harness.counts()).toMatchObject({ received: 2, accepted: 2, unauthorized: 0, executions: 1, crashes: 0 });
		const [run] = harness.executions;
		expect(run.error()).toBeUndefined();
		expect(run.output('After')).toHaveLength(1);
		expect(run.output(harness.node.name)[0].json).toEqual({
			event: 'charge.completed',
			id: expect.stringMatching(/^evt_/),
			source: 'webhook',
			resource: 'charge',
			status: 'COMPLETED',
			reference,
			channel: 'psp-a-tg',
			amount: 5000,
			currency: 'XOF',
			created_at: expect.any(String),
			occurred_at: expect.any(String),
			confirmed: false,
			data: expect.objectContaining({ reference, status: { code: 1, label: 'COMPLETED' } }),
		});
		expect(harness.captured.at(-1)?.headers['x-hmac-signature']).toBeDefined();
	});

	it('verifies body-hmac deliveries too (payout failed)', async () => {
		const harness = await trigger({}, { scheme: 'body-hmac' });
		const reference = await api.create('payout');
		await settle(reference, 'FAILED');
		expect(harness.captured.every((request) => request.headers['x-webhook-signature'] !== undefined)).toBe(true);
		expect(harness.counts()).toMatchObject({ received: 2, accepted: 2, executions: 1 });
		expect(triggerOutputs(harness)[0]).toMatchObject({
			event: 'payout.failed',
			resource: 'payout',
			status: 'FAILED',
			reference,
			amount: -2500,
			channel: 'psp-b-tg',
		});
	});

	it('refuses every delivery of the other scheme when the scheme is pinned', async () => {
		const harness = await trigger({ options: { signatureScheme: 'request-style' } }, { scheme: 'body-hmac' });
		const reference = await api.create('charge');
		await settle(reference, 'COMPLETED');
		expect(harness.counts().executions).toBe(0);
		expect(harness.counts().accepted).toBe(0);
		expect(harness.counts().unauthorized).toBe(harness.counts().received);
		expect(harness.counts().received).toBeGreaterThanOrEqual(2);
	});

	it('refuses forged, tampered, stale and replayed deliveries with 401 and no execution', async () => {
		const harness = await trigger();
		const other = await trigger({}, { subscribe: false });
		const reference = await api.create('charge');
		await settle(reference, 'COMPLETED');
		expect(harness.counts().executions).toBe(1);
		const original = harness.captured.at(-1)!;
		const headers = {
			'x-timestamp': String(original.headers['x-timestamp']),
			'x-hmac-signature': String(original.headers['x-hmac-signature']),
		};
		const body = original.rawBody.toString('utf8');

		const tamperedBody = body.replace('"value":5000', '"value":9000');
		expect(tamperedBody).not.toBe(body);
		const attempts: Array<[string, Record<string, string>, string, string?]> = [
			['tampered amount', headers, tamperedBody],
			['tampered reference', headers, body.split(reference).join(`${reference}x`)],
			['re-serialised JSON', headers, JSON.stringify(JSON.parse(body), null, 1)],
			['forged with a guessed secret', signed(harness, tamperedBody, { secret: 'guess' }), tamperedBody],
			['forged new event', signed(harness, eventBody('evt_forged', 'charge.completed', {}), { secret: '' }), eventBody('evt_forged', 'charge.completed', {})],
			['no signature', { 'x-timestamp': headers['x-timestamp'] }, body],
			['no timestamp', { 'x-hmac-signature': headers['x-hmac-signature'] }, body],
			['no headers', {}, body],
			['captured signature, fresh timestamp', { ...headers, 'x-timestamp': String(nowSeconds() + 1) }, body],
			['request-style value in the body-hmac header', { 'x-timestamp': headers['x-timestamp'], 'x-webhook-signature': headers['x-hmac-signature'] }, body],
			['stale by 301 s', signed(harness, eventBody('evt_stale', 'charge.completed', {}), { timestamp: nowSeconds() - 301 }), eventBody('evt_stale', 'charge.completed', {})],
			// Signed now, posted after the attempts before it: 1 s of margin is gone on a loaded machine
			// (the exact 300 s boundary is unit-tested with a fixed clock).
			['360 s in the future', signed(harness, eventBody('evt_future', 'charge.completed', {}), { timestamp: nowSeconds() + 360 }), eventBody('evt_future', 'charge.completed', {})],
			['replayed to another workflow', headers, body, other.url],
			['replayed with a query added', headers, body, `${harness.url}?x=1`],
		];
		const expectedSignatures: string[] = [];
		for (const [label, attemptHeaders, attemptBody, url] of attempts) {
			const response = await postRaw(url ?? harness.url, attemptHeaders, attemptBody);
			expect({ label, status: response.status }).toEqual({ label, status: 401 });
			expectedSignatures.push(signed(harness, attemptBody, { url: url ?? harness.url, timestamp: Number(attemptHeaders['x-timestamp'] ?? 0) })['x-hmac-signature']);
			expect(findSecrets(response.body, { webhookSecret: sandbox.info.webhookSecret, signatures: expectedSignatures })).toEqual([]);
		}

		const replay = await postRaw(harness.url, headers, body);
		expect(replay.status).toBe(200);
		expect(JSON.parse(replay.body)).toEqual({ received: true, ignored: 'duplicate-event' });
		expect(harness.counts().executions).toBe(1);
		expect(other.counts().executions).toBe(0);
		expect(harness.counts().crashes).toBe(0);
		expect(harness.remembered().get(reference)).toEqual(['PENDING', 'COMPLETED']);
	});

	it('runs a redelivered event once: the response was lost, the sandbox retried with the same id', async () => {
		const harness = await trigger();
		const reference = await api.create('charge');
		await sandbox.control.flushWebhooks();
		await sandbox.control.resetCounters();
		harness.loseNextResponses = 1;
		await settle(reference, 'COMPLETED');

		const completed = harness.captured.filter((request) => JSON.parse(request.rawBody.toString()).event === 'charge.completed');
		expect(completed).toHaveLength(2);
		expect(new Set(completed.map((request) => JSON.parse(request.rawBody.toString()).id)).size).toBe(1);
		expect(harness.counts().executions).toBe(1);
		expect(harness.deliveries.at(-1)).toMatchObject({ status: 200, executed: false });
		const counters = await sandbox.control.counters();
		expect(counters.webhooksDelivered).toBe(1);
		expect(counters.webhookAttempts).toBe(2);

		const again = JSON.parse(completed[0].rawBody.toString());
		const resent = JSON.stringify(again);
		expect((await postRaw(harness.url, signed(harness, resent), resent)).status).toBe(200);
		expect(harness.counts().executions).toBe(1);
	});

	it('drops a repeated status under a new id and a PENDING after a later status; runs any other status of the transaction once', async () => {
		const harness = await trigger({ statuses: [] });
		const charge = await api.create('charge');
		await settle(charge, 'COMPLETED');
		expect(triggerOutputs(harness).map((item) => item?.status)).toEqual(['PENDING', 'COMPLETED']);

		const completedEnvelope = await envelopeOf(charge);
		const post = async (id: string, event: string, envelope: object) => {
			const body = eventBody(id, event, envelope);
			const answer = await postRaw(harness.url, signed(harness, body), body);
			expect(answer.status).toBe(200);
			return JSON.parse(answer.body || '{}') as { ignored?: string };
		};
		expect((await post('evt_late_pending', 'charge.pending', { ...completedEnvelope, status: { code: 0, label: 'PENDING' } })).ignored).toBe('duplicate-event');
		expect((await post('evt_second_completed', 'charge.completed', completedEnvelope)).ignored).toBe('duplicate-event');
		// Not a move the specification shows, but not one backwards either (docs/decisions.md D2): it runs, once.
		const failed = { ...completedEnvelope, status: { code: 2, label: 'FAILED' } };
		expect((await post('evt_failed', 'charge.failed', failed)).ignored).toBeUndefined();
		expect((await post('evt_failed_again', 'charge.failed', failed)).ignored).toBe('duplicate-event');
		// A transaction first seen COMPLETED: its PENDING, delivered late, is stale.
		const unseen = { ...completedEnvelope, reference: `${charge}-unseen` };
		expect((await post('evt_unseen_completed', 'charge.completed', unseen)).ignored).toBeUndefined();
		expect((await post('evt_unseen_pending', 'charge.pending', { ...unseen, status: { code: 0, label: 'PENDING' } })).ignored).toBe('stale-status');
		expect(harness.counts().executions).toBe(4);

		const payout = await api.create('payout');
		await settle(payout, 'COMPLETED');
		await settle(payout, 'REVERSED');
		const payoutEnvelope = await envelopeOf(payout, 'payout');
		expect((await post('evt_late_completed', 'payout.completed', { ...payoutEnvelope, status: { code: 1, label: 'COMPLETED' } })).ignored).toBe('duplicate-event');
		expect(triggerOutputs(harness).map((item) => `${item?.resource}:${item?.status}`)).toEqual([
			'charge:PENDING',
			'charge:COMPLETED',
			'charge:FAILED',
			'charge:COMPLETED',
			'payout:PENDING',
			'payout:COMPLETED',
			'payout:REVERSED',
		]);
	});

	it('filters by resource, status and channel, answering filtered events with 200', async () => {
		const harness = await trigger({ resources: ['payout'], statuses: ['COMPLETED'], channels: ['psp-b-tg'] });
		const charge = await api.create('charge', { channel: 'psp-b-tg' });
		await settle(charge, 'COMPLETED');
		const wrongChannel = await api.create('payout', { channel: 'psp-a-tg' });
		await settle(wrongChannel, 'COMPLETED');
		const wrongStatus = await api.create('payout');
		await settle(wrongStatus, 'FAILED');
		const wanted = await api.create('payout');
		await settle(wanted, 'COMPLETED');

		expect(harness.counts()).toMatchObject({ received: 8, accepted: 8, executions: 1 });
		expect(harness.deliveries.filter((delivery) => delivery.body.includes('"filtered"'))).toHaveLength(7);
		expect(triggerOutputs(harness)[0]).toMatchObject({ reference: wanted, resource: 'payout', status: 'COMPLETED' });
	});

	it('confirms with the API: emits the API state; a read that lags the event (404, an earlier status) or fails makes the sender retry', async () => {
		const harness = await trigger({ confirmWithApi: true, statuses: ['COMPLETED'] });
		const pending = await api.create('charge');
		await sandbox.control.flushWebhooks();

		const claimed = await envelopeOf(pending);
		const early = eventBody('evt_claims_completed', 'charge.completed', { ...claimed, status: { code: 1, label: 'COMPLETED' }, amount: { value: 1, currency: 'XOF' } });
		const behind = await postRaw(harness.url, signed(harness, early), early);
		expect(behind.status).toBe(503);
		expect(behind.body).toContain('confirmation-pending');
		expect(harness.counts().executions).toBe(0);

		const unknown = eventBody('evt_unknown', 'charge.completed', { ...claimed, reference: 'chg_does_not_exist' });
		const notYet = await postRaw(harness.url, signed(harness, unknown), unknown);
		expect(notYet.status).toBe(503);
		expect(JSON.parse(notYet.body).error).toBe('confirmation-pending');

		await sandbox.control.addFault({ route: 'get_money_v1_charge_reference', kind: '503', count: 2 });
		await settle(pending, 'COMPLETED');
		expect(harness.deliveries.some((delivery) => delivery.status === 503)).toBe(true);
		expect(harness.counts().executions).toBe(1);
		expect(triggerOutputs(harness)[0]).toMatchObject({
			event: 'charge.completed',
			reference: pending,
			status: 'COMPLETED',
			confirmed: true,
			amount: 5000,
			data: expect.objectContaining({ status: { code: 1, label: 'COMPLETED' } }),
		});

		// The early event's retry, now that the API shows the completion: already emitted.
		expect(JSON.parse((await postRaw(harness.url, signed(harness, early), early)).body).ignored).toBe('duplicate-event');
		const rootEnvelope = JSON.stringify({ ...(await envelopeOf(pending)) });
		expect(JSON.parse((await postRaw(harness.url, signed(harness, rootEnvelope), rootEnvelope)).body).ignored).toBe('duplicate-event');
	});

	it('confirms with the API: an event read at another status whose order against its own is not known runs once as delivered, with the status the API showed, whether that status ran already or not', async () => {
		// COMPLETED's first delivery lost, its retry after the charge became FAILED (FAILED ran).
		const harness = await trigger({ confirmWithApi: true, statuses: [] });
		const charge = await api.create('charge');
		await settle(charge, 'FAILED');
		expect(triggerOutputs(harness).map((item) => item?.status)).toEqual(['FAILED']);
		const envelope = await envelopeOf(charge);
		const late = eventBody('evt_late_completed', 'charge.completed', { ...envelope, status: { code: 1, label: 'COMPLETED' } });
		const answers: string[] = [];
		for (let copy = 0; copy < 2; copy++) answers.push((await postRaw(harness.url, signed(harness, late), late)).body);
		expect(answers[0]).not.toContain('"error"');
		expect(JSON.parse(answers[1]).ignored).toBe('duplicate-event');
		expect(triggerOutputs(harness).slice(1)).toEqual([expect.objectContaining({ reference: charge, status: 'COMPLETED', api_status: 'FAILED', confirmed: false })]);

		// A status the API does not list, after COMPLETED ran: the read (COMPLETED) may lag it; it runs once.
		const refunded = await api.create('charge');
		await settle(refunded, 'COMPLETED');
		const refund = eventBody('evt_refunded', 'charge.refunded', { ...(await envelopeOf(refunded)), status: { code: 9, label: 'REFUNDED' } });
		expect((await postRaw(harness.url, signed(harness, refund), refund)).status).toBe(200);
		expect(JSON.parse((await postRaw(harness.url, signed(harness, refund), refund)).body).ignored).toBe('duplicate-event');
		expect(triggerOutputs(harness).at(-1)).toMatchObject({ reference: refunded, status: 'REFUNDED', api_status: 'COMPLETED', confirmed: false });

		// The late COMPLETED reaching a trigger that never saw the FAILED: it runs as COMPLETED, and FAILED's own delivery still runs.
		const fresh = await trigger({ confirmWithApi: true, statuses: [] }, { subscribe: false });
		expect((await postRaw(fresh.url, signed(fresh, late), late)).status).toBe(200);
		const failed = JSON.stringify({ id: 'evt_failed', event: 'charge.failed', created_at: new Date().toISOString(), data: envelope });
		expect((await postRaw(fresh.url, signed(fresh, failed), failed)).status).toBe(200);
		expect(triggerOutputs(fresh).map((item) => [item?.status, item?.api_status ?? null, item?.confirmed])).toEqual([
			['COMPLETED', 'FAILED', false],
			['FAILED', null, true],
		]);
		expect(harness.counts().crashes + fresh.counts().crashes).toBe(0);
	});

	it('accepts an envelope at the root and a payout typed "transfer"', async () => {
		const harness = await trigger({ statuses: [] }, { subscribe: false });
		const payout = await api.create('payout');
		await sandbox.control.flushWebhooks();
		const envelope = { ...(await envelopeOf(payout, 'payout')), type: 'transfer', status: { code: 1, label: 'COMPLETED' } };
		const body = JSON.stringify(envelope);
		expect((await postRaw(harness.url, signed(harness, body, { scheme: 'body-hmac' }), body)).status).toBe(200);
		expect(triggerOutputs(harness)[0]).toMatchObject({ event: 'payout.completed', resource: 'payout', id: expect.stringMatching(/^body_/) });
		expect((await postRaw(harness.url, signed(harness, body), body)).status).toBe(200);
		expect(harness.counts().executions).toBe(1);
	});

	it('answers malformed and oversized bodies with 400 and 413, without crashing', async () => {
		const harness = await trigger({ options: { maxBodySizeKb: 1 } }, { subscribe: false });
		const malformed = '{"id":"evt_bad",';
		expect((await postRaw(harness.url, signed(harness, malformed), malformed)).status).toBe(400);
		const notAnEvent = '[1,2,3]';
		expect((await postRaw(harness.url, signed(harness, notAnEvent), notAnEvent)).status).toBe(400);
		const big = eventBody('evt_big', 'charge.completed', { reference: 'x', padding: 'a'.repeat(2048) });
		expect((await postRaw(harness.url, signed(harness, big), big)).status).toBe(413);
		expect((await postRaw(harness.url, {}, malformed)).status).toBe(401);
		expect(harness.counts()).toMatchObject({ executions: 0, crashes: 0 });
	});

	it('verifies behind a reverse proxy: public URL path from n8n, or the Signed Path setting', async () => {
		const direct = await trigger({}, { subscribe: false });
		const proxiedPath = `/n8n/webhook/${direct.node.webhookId}/money`;
		const body = eventBody('evt_proxy', 'charge.completed', { reference: 'chg_proxy', type: 'charge', status: { code: 1, label: 'COMPLETED' } });
		const proxySigned = signed(direct, body, { url: `https://pay.example.com${proxiedPath}` });
		expect((await postRaw(direct.url, proxySigned, body)).status).toBe(401);

		const withPublicUrl = await trigger({}, { subscribe: false, publicWebhookBaseUrl: 'https://pay.example.com/n8n/webhook' });
		const publicSigned = signed(withPublicUrl, body, { url: `https://pay.example.com/n8n/webhook/${withPublicUrl.node.webhookId}/money` });
		expect((await postRaw(withPublicUrl.url, publicSigned, body)).status).toBe(200);
		expect(withPublicUrl.counts().executions).toBe(1);

		// The Signed Path stands for the public Production URL; the path the request arrived on still binds.
		const withSetting = await trigger({ options: { signedPath: '/hooks/money?tenant=a' } }, { subscribe: false });
		const settingSigned = signed(withSetting, body, { url: 'https://gw.example.com/hooks/money?tenant=a' });
		expect((await postRaw(withSetting.url, settingSigned, body)).status).toBe(200);
		expect((await postRaw(withSetting.url, signed(withSetting, body, { url: 'https://gw.example.com/hooks/other?tenant=a' }), body)).status).toBe(401);
		const other = eventBody('evt_proxy_direct', 'charge.completed', { reference: 'chg_proxy_direct', type: 'charge', status: { code: 1, label: 'COMPLETED' } });
		expect((await postRaw(withSetting.url, signed(withSetting, other), other)).status).toBe(200);
		expect(withSetting.counts().executions).toBe(2);
	});

	it('leaks no secret or signature into executions, responses or static data', async () => {
		const harness = await trigger({ confirmWithApi: true, statuses: [] });
		const charge = await api.create('charge');
		await sandbox.control.flushWebhooks();
		await settle(charge, 'COMPLETED');
		const forged = eventBody('evt_leak', 'charge.completed', {});
		await postRaw(harness.url, signed(harness, forged, { secret: 'x' }), forged);
		const signatures = harness.captured.map((request) => String(request.headers['x-hmac-signature']));
		signatures.push(signed(harness, forged)['x-hmac-signature']);
		const secrets = {
			webhookSecret: sandbox.info.webhookSecret,
			hmacSecret: sandbox.info.hmacSecret,
			clientSecret: sandbox.info.clientSecret,
			pin: sandbox.info.pin,
			signatures,
		};
		expect(harness.counts().executions).toBe(2);
		expect(findSecrets(harness.executions.map((run) => run.run), secrets)).toEqual([]);
		expect(findSecrets(harness.deliveries, secrets)).toEqual([]);
		expect(findSecrets(harness.staticData, secrets)).toEqual([]);
	});
});
