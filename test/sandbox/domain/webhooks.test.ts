import { SandboxControlClient, type Sandbox } from '../../../sandbox';
import { ApiTestClient, chargeBody, payoutBody, startReceiver, startTestSandbox, type Receiver } from '../helpers';
import { verifyBodyHmacWebhook, verifyRequestStyleWebhook } from '../signer';

describe('webhooks (D1)', () => {
	let sandbox: Sandbox | undefined;
	let receiver: Receiver | undefined;

	afterEach(async () => {
		await sandbox?.close();
		await receiver?.close();
		sandbox = undefined;
		receiver = undefined;
	});

	it('sends charge.pending on create and charge.completed on completion, signed request-style', async () => {
		receiver = await startReceiver();
		sandbox = await startTestSandbox({ webhookUrl: receiver.url });
		const api = new ApiTestClient(sandbox);
		const created = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		await sandbox.control.setStatus(created.json.reference, 'COMPLETED');
		await sandbox.control.flushWebhooks();

		expect(receiver.received.map((hook) => hook.json.event)).toEqual(['charge.pending', 'charge.completed']);
		for (const hook of receiver.received) {
			expect(hook.path).toBe('/hooks/money?tenant=a');
			expect(hook.headers['content-type']).toBe('application/json');
			expect(hook.json).toEqual({ id: expect.stringMatching(/^evt_/), event: expect.any(String), created_at: expect.any(String), data: expect.any(Object) });
			expect(hook.json.data.reference).toBe(created.json.reference);
			const verified = verifyRequestStyleWebhook(sandbox.info.webhookSecret, hook.path, hook.rawBody, String(hook.headers['x-timestamp']), String(hook.headers['x-hmac-signature']));
			expect(verified).toBe(true);
			expect(Math.abs(Number(hook.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
		}
		expect(receiver.received[1].json.data.status).toEqual({ code: 1, label: 'COMPLETED' });
		expect(receiver.received[0].json.id).not.toBe(receiver.received[1].json.id);
	});

	it('signs with body-hmac when configured', async () => {
		receiver = await startReceiver();
		sandbox = await startTestSandbox({ webhookUrl: receiver.url, webhookScheme: 'body-hmac' });
		const api = new ApiTestClient(sandbox);
		await api.call('POST', '/money/v1/payout', { body: payoutBody() });
		await sandbox.control.flushWebhooks();
		const [hook] = receiver.received;
		expect(hook.json.event).toBe('payout.pending');
		expect(hook.json.data.amount.value).toBe(-2500);
		expect(hook.headers['x-hmac-signature']).toBeUndefined();
		expect(verifyBodyHmacWebhook(sandbox.info.webhookSecret, hook.rawBody, String(hook.headers['x-timestamp']), String(hook.headers['x-webhook-signature']))).toBe(true);
		expect(verifyBodyHmacWebhook('wrong-secret', hook.rawBody, String(hook.headers['x-timestamp']), String(hook.headers['x-webhook-signature']))).toBe(false);
	});

	it('retries a receiver that answers 500 twice, then 200, with the same id and body', async () => {
		receiver = await startReceiver((_hook, index) => (index < 2 ? 500 : 200));
		sandbox = await startTestSandbox({ webhookUrl: receiver.url });
		const api = new ApiTestClient(sandbox);
		await sandbox.control.resetCounters();
		await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		await sandbox.control.flushWebhooks();
		expect(receiver.received).toHaveLength(3);
		const ids = new Set(receiver.received.map((hook) => hook.json.id));
		expect(ids.size).toBe(1);
		expect(new Set(receiver.received.map((hook) => hook.rawBody.toString('utf8'))).size).toBe(1);
		const counters = await sandbox.control.counters();
		expect(counters).toMatchObject({ webhookAttempts: 3, webhooksDelivered: 1, webhooksFailed: 0 });
	});

	it('gives up after the configured attempts (at least 5) and flush still resolves', async () => {
		receiver = await startReceiver(() => 503);
		sandbox = await startTestSandbox({ webhookUrl: receiver.url });
		const api = new ApiTestClient(sandbox);
		await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		await sandbox.control.flushWebhooks();
		expect(receiver.received).toHaveLength(5);
		expect(await sandbox.control.counters()).toMatchObject({ webhookAttempts: 5, webhooksDelivered: 0, webhooksFailed: 1 });
	});

	it('retries when the receiver does not answer in time', async () => {
		let calls = 0;
		receiver = await startReceiver(() => 200);
		sandbox = await startTestSandbox({ config: { webhooks: { baseDelayMs: 10, timeoutMs: 1000, maxAttempts: 5 } } });
		const { createServer } = await import('node:http');
		const slow = createServer((request, response) => {
			calls++;
			if (calls === 1) return;
			request.resume();
			response.end();
		});
		await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
		try {
			const address = slow.address() as { port: number };
			await sandbox.control.setWebhook(`http://127.0.0.1:${address.port}/slow`, 'request-style');
			await new ApiTestClient(sandbox).call('POST', '/money/v1/charge', { body: chargeBody() });
			await sandbox.control.flushWebhooks();
			expect(calls).toBe(2);
			expect((await sandbox.control.counters()).webhooksDelivered).toBe(1);
		} finally {
			slow.closeAllConnections();
			await new Promise<void>((resolve) => slow.close(() => resolve()));
		}
	});

	it('the webhook target can be set and flushed through the HTTP control API', async () => {
		receiver = await startReceiver();
		sandbox = await startTestSandbox();
		const control = new SandboxControlClient(sandbox.info.controlUrl);
		await control.setWebhook(receiver.url, 'body-hmac');
		const api = new ApiTestClient(sandbox);
		const created = await api.call('POST', '/money/v1/payout', { body: payoutBody() });
		await control.setStatus(created.json.reference, 'FAILED');
		await control.flushWebhooks();
		expect(receiver.received.map((hook) => hook.json.event)).toEqual(['payout.pending', 'payout.failed']);
		expect(receiver.received[0].headers['x-webhook-signature']).toBeDefined();
	});

	it('completes PENDING transactions on its own after finalizeAfterMs and reports it', async () => {
		receiver = await startReceiver();
		sandbox = await startTestSandbox({ webhookUrl: receiver.url, finalizeAfterMs: 30 });
		const api = new ApiTestClient(sandbox);
		const created = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		let label = 'PENDING';
		for (let attempt = 0; attempt < 200 && label === 'PENDING'; attempt++) {
			await new Promise((resolve) => setTimeout(resolve, 25));
			label = (await api.call('GET', `/money/v1/charge/${created.json.reference}`)).json.data.status.label;
		}
		expect(label).toBe('COMPLETED');
		await sandbox.control.flushWebhooks();
		expect(receiver.received.map((hook) => hook.json.event)).toEqual(['charge.pending', 'charge.completed']);
	});

	it('keeps the queue bounded: events beyond the capacity are dropped and counted', async () => {
		const { createServer } = await import('node:http');
		const held: Array<() => void> = [];
		const holding = createServer((request, response) => {
			request.resume();
			held.push(() => response.end());
		});
		await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
		try {
			const address = holding.address() as { port: number };
			sandbox = await startTestSandbox({ webhookUrl: `http://127.0.0.1:${address.port}/held`, config: { webhooks: { queueCapacity: 2, concurrency: 1 } } });
			const api = new ApiTestClient(sandbox);
			for (let index = 0; index < 4; index++) await api.call('POST', '/money/v1/charge', { body: chargeBody() });
			const flushed = sandbox.control.flushWebhooks();
			const releaseAll = setInterval(() => held.splice(0).forEach((release) => release()), 10);
			await flushed;
			clearInterval(releaseAll);
			const counters = await sandbox.control.counters();
			expect(counters).toMatchObject({ webhooksQueued: 2, webhooksDropped: 2, webhooksDelivered: 2 });
		} finally {
			holding.closeAllConnections();
			await new Promise<void>((resolve) => holding.close(() => resolve()));
		}
	});
});
