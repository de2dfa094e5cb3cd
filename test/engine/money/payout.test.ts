import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { buildWorkflow, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, runMoneyNode, runWorkflow } from '../../harness/engine';
import { paidWith, type Step, VELOCITY_REFUSAL, withFront } from './front';
import { CONTINUE, FAST, UUID, useMoneyNode } from './setup';

/*
 * The Money node's Payout operations against the sandbox: create, get, get many, exactly-once creates and large runs.
 */
const env = useMoneyNode();
const { run, json, payout, expectFailure } = env;

describe('Money node against the sandbox', () => {
	describe('payout', () => {
		it('creates, gets and lists payouts, REVERSED included', async () => {
			const created = json(await run(payout({ amount: 2500 })));
			expect(created).toMatchObject({ outcome: 'created', status: 'PENDING', beneficiary_identifier: 'GM-1002', beneficiary_identifier_type: 'gm_account', reference: expect.any(String), resource: 'payout' });
			expect(created.idempotency_key).toMatch(UUID);
			// What happened, to whom, how much, the Business Reference, then the API's reference and the rest; flat, no `success`.
			expect(Object.keys(created)).toEqual([
				'outcome',
				'status',
				'beneficiary_identifier',
				'beneficiary_identifier_type',
				'beneficiary_account_type',
				'amount',
				'currency',
				'channel',
				'business_reference',
				'reference',
				'resource',
				'idempotency_key',
			]);

			// Get simplifies by default (n8n's Simplify switch); Simplify off gives the API's envelope.
			const fetched = json(await run({ resource: 'payout', operation: 'get', reference: created.reference, options: FAST }));
			expect(fetched).toMatchObject({ status: 'PENDING', amount: -2500, currency: 'XOF', counterpart_identifier: expect.any(String), reference: created.reference });
			const raw = json(await run({ resource: 'payout', operation: 'get', reference: created.reference, simplify: false, options: FAST }));
			expect(raw).toMatchObject({ reference: created.reference, amount: { value: -2500 } });

			await env.sb.control.setStatus(String(created.reference), 'COMPLETED');
			await env.sb.control.setStatus(String(created.reference), 'REVERSED');
			const listed = await run({
				resource: 'payout',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'REVERSED' },
				options: FAST,
			});
			expect(listed.output('Money').map((item) => item.json.reference)).toContain(created.reference);
		});

		it('says on every error item whose payout it was, a row refused before any request included, and sends them to the error output when asked', async () => {
			const rows = [
				{ order: 'ER-1', amount: 1500, to: 'GM-1002', type: 'gm_account' },
				{ order: 'ER-2', amount: 'abc', to: 'GM-1003', type: 'gm_account' },
				{ order: 'ER-3', amount: 1700, to: '+22890000002', type: 'phone', channel: 'platform' },
				{ order: 'ER-4', amount: 10_000_000, to: 'GM-1002', type: 'gm_account' },
			];
			const parameters = payout({
				amount: '={{ $json.amount }}',
				beneficiaryIdentifier: '={{ $json.to }}',
				beneficiaryIdentifierType: '={{ $json.type }}',
				channel: '={{ $json.channel ?? "psp-a-tg" }}',
				businessReference: '={{ $json.order }}',
			});
			const result = await run(parameters, { settings: CONTINUE, items: rows.map((json) => ({ json })) });
			const items = result.output('Money').map((item) => item.json);
			expect(items.map((item) => item.outcome)).toEqual(['created', 'failed', 'failed', 'failed']);
			// On Error: Continue (using error output): the same items, the failures on the error output.
			const routed = await run(parameters, { settings: { onError: 'continueErrorOutput' }, items: rows.map((json) => ({ json })) });
			expect(routed.output('Money', 0).map((item) => item.json.business_reference)).toEqual(['ER-1']);
			// What the node says is one error object, its message beside the rest (n8n adds the input row's fields when a node precedes it).
			const failed = routed.output('Money', 1).map((item) => item.json);
			expect(failed.map((item) => (item.error as IDataObject).business_reference)).toEqual(['ER-2', 'ER-3', 'ER-4']);
			const { error: message, ...details } = items[1];
			expect(failed[0]).toEqual({ error: { message, ...details } });
			expect(items[1]).toMatchObject({
				business_reference: 'ER-2',
				amount: 'abc',
				currency: 'XOF',
				beneficiary_identifier: 'GM-1003',
				beneficiary_identifier_type: 'gm_account',
				channel: 'psp-a-tg',
				attempted: false,
				field: 'amount',
				idempotency_key: null,
			});
			expect(items[2]).toMatchObject({ business_reference: 'ER-3', amount: 1700, beneficiary_identifier: '+22890000002', beneficiary_identifier_type: 'phone', channel: 'platform', field: 'beneficiary_account_type' });
			// Refused by the API: what it was sent with.
			expect(items[3]).toMatchObject({ business_reference: 'ER-4', amount: 10_000_000, currency: 'XOF', beneficiary_identifier: 'GM-1002', beneficiary_identifier_type: 'gm_account', channel: 'psp-a-tg' });
			for (const item of items.slice(1)) {
				expect(Object.keys(item).slice(0, 9)).toEqual(['outcome', 'error', 'beneficiary_identifier', 'beneficiary_identifier_type', 'beneficiary_account_type', 'amount', 'currency', 'channel', 'business_reference']);
			}
		});

		it('waits for the final status when asked', async () => {
			await env.sb.control.setFinalizeAfter(150);
			const done = json(
				await run(payout({ options: { ...FAST, waitForFinalStatus: true, pollIntervalMs: 50, waitTimeoutSeconds: 10 } })),
			);
			expect(done).toMatchObject({ final_status_reached: true, status: expect.stringMatching(/COMPLETED|FAILED|CANCELLED/) });
			expect(Object.keys(done).slice(0, 4)).toEqual(['outcome', 'status', 'beneficiary_identifier', 'beneficiary_identifier_type']);
			await env.sb.control.setFinalizeAfter(null);

			const pending = json(
				await run(payout({ options: { ...FAST, waitForFinalStatus: true, pollIntervalMs: 100, waitTimeoutSeconds: 1 } })),
			);
			expect(pending).toMatchObject({ final_status_reached: false, status: 'PENDING' });
		});

		it('keeps waiting while the status is a label the specification does not list: only COMPLETED, FAILED, CANCELLED and REVERSED are final', async () => {
			await env.sb.control.addFault({ route: 'get_money_v1_payout_reference', kind: 'status-label', label: 'PROCESSING' });
			try {
				const waited = json(await run(payout({ options: { ...FAST, waitForFinalStatus: true, pollIntervalMs: 100, waitTimeoutSeconds: 1 } })));
				expect(waited).toMatchObject({ final_status_reached: false, status: 'PROCESSING' });
			} finally {
				await env.sb.control.clearFaults();
			}
		});

		it.each([
			['VALIDATION_ERROR', 400, { additionalFields: { paymentReferenceNumber: 'R'.repeat(150) } }, {}],
			['BENEFICIARY_NOT_FOUND', 404, { beneficiaryIdentifier: 'GM-0000' }, {}],
			['BENEFICIARY_NOT_ELIGIBLE', 400, { beneficiaryIdentifier: 'GM-1099' }, {}],
			['INSUFFICIENT_FUNDS', 402, { amount: 6000 }, { balance: 5000 }],
			['LIMIT_EXCEEDED', 403, { amount: 4000 }, { limits: { maxAmount: 3000 } }],
		])('maps %s from create payout', async (code, status, overrides, patch) => {
			await env.sb.control.updateClient(env.sb.info.clientId, patch);
			const item = await expectFailure(payout(overrides), code, status);
			if (code === 'INSUFFICIENT_FUNDS') {
				expect(item.details).toMatchObject({ available_balance: 5000 });
				expect(String(item.description)).toContain('available_balance: 5000');
			}
			if (code === 'LIMIT_EXCEEDED') expect(String(item.description)).toContain('max_amount: 3000');
		});

		it('maps the velocity limit as LIMIT_EXCEEDED with On Velocity Limit = Fail the Item', async () => {
			const alreadyInWindow = (await env.sb.control.ledger()).payouts.length;
			await env.sb.control.updateClient(env.sb.info.clientId, { limits: { velocityLimit: alreadyInWindow + 2 } });
			const parameters = payout({
				businessReference: '={{ "velocity-" + $itemIndex + "-" + $execution.id }}',
				options: { ...FAST, onVelocityLimit: 'fail' },
			});
			const result = await run(parameters, {
				items: [{ json: {} }, { json: {} }, { json: {} }],
				settings: CONTINUE,
			});
			expect(result.output('Money').map((item) => item.json.error_code ?? 'ok')).toEqual(['ok', 'ok', 'LIMIT_EXCEEDED']);
		});

		it('maps PAYOUT_NOT_FOUND, 429, 503 and 502 UPSTREAM_ERROR', async () => {
			await expectFailure({ resource: 'payout', operation: 'get', reference: 'nope-456', options: FAST }, 'PAYOUT_NOT_FOUND', 404);
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '429', retryAfterSeconds: 0 });
			await expectFailure(payout({ options: { maxRetries: 1, retryBaseDelayMs: 1 } }), 'rate_limit_exceeded', 429);
			await env.sb.control.clearFaults();
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '503' });
			await expectFailure(payout(), 'PROVIDER_UNAVAILABLE', 503);
			await env.sb.control.clearFaults();
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '502' });
			await expectFailure(payout(), 'UPSTREAM_ERROR', 502);
		});

		it('maps 401, IDEMPOTENCY_CONFLICT and an unretried 500 INTERNAL_ERROR on create payout', async () => {
			env.engine.credentials.set('bad-hmac', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { hmacSecret: 'not-the-right-secret' }));
			const unauthorized = json(await run(payout(), { settings: CONTINUE, credentialId: 'bad-hmac' }));
			expect(unauthorized).toMatchObject({ httpCode: 401, error_code: 'unauthorized' });

			expect(json(await run(payout({ amount: 2222, businessReference: 'payout-conflict-1' }))).reference).toBeDefined();
			await expectFailure(payout({ amount: 2223, businessReference: 'payout-conflict-1' }), 'IDEMPOTENCY_CONFLICT', 409);

			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '500' });
			const before = (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
			await expectFailure(payout(), 'INTERNAL_ERROR', 500);
			expect((await env.sb.control.counters()).requests.post_money_v1_payout - before).toBe(1);
		});

		it('retries a connection dropped before the commit on a read', async () => {
			await env.sb.control.addFault({ route: 'get_money_v1_account', kind: 'drop', count: 2 });
			expect(json(await run({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();
		});

		it('creates exactly one payout when the connection drops after the commit and the node retries', async () => {
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
			const item = json(await run(payout({ amount: 3333 })));
			expect(item.reference).toBeDefined();
			const counters = await env.sb.control.counters();
			expect(counters.createsByIdempotencyKey[String(item.idempotency_key)]).toBe(1);
			const ledger = await env.sb.control.ledger();
			expect(ledger.payouts.filter((entry) => entry.idempotency_key === item.idempotency_key)).toHaveLength(1);
		});

		/** The three things an uncertain create must say: the money may have moved, a Retry is safe, a new run pays again without a Business Reference. */
		function expectUncertain(description: unknown) {
			expect(String(description)).toContain('The money may have moved');
			expect(String(description)).toContain('A Retry of this execution');
			expect(String(description)).toMatch(/a new run of the workflow pays it again unless a Business Reference is mapped/);
		}

		it('says a payout may have moved money when its answer was lost and the retries were then refused (429)', async () => {
			await run({ resource: 'account', operation: 'get', options: FAST }); // a fresh token: the faults meet the create, not a 401
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '429', retryAfterSeconds: 0, count: 5 });
			const item = await expectFailure(payout({ amount: 3388, options: { maxRetries: 2, retryBaseDelayMs: 1 } }), 'rate_limit_exceeded', 429);
			expect(item).toMatchObject({ outcome: 'failed', idempotency_key: expect.any(String) });
			expect((await env.sb.control.counters()).createsByIdempotencyKey[String(item.idempotency_key)]).toBe(1);
			expect(String(item.description)).toContain('An earlier attempt of this request got no answer.');
			expectUncertain(item.description);
		});

		it('says a payout that ended in 503 may have moved money, that a Retry of this execution is safe and a new run pays again', async () => {
			await run({ resource: 'account', operation: 'get', options: FAST });
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '503', retryAfterSeconds: 0, count: 3 });
			const item = await expectFailure(payout({ amount: 3389, options: { maxRetries: 2, retryBaseDelayMs: 1 } }), 'PROVIDER_UNAVAILABLE', 503);
			expectUncertain(item.description);
			expect(String(item.description)).not.toContain('Try again later');
		});

		it.each([
			['429', 'rate_limit_exceeded', 429],
			['404', 'TRANSACTION_NOT_FOUND', 404],
		] as const)('says a payout refused (%s) after an attempt answered 503 may have moved money', async (kind, code, status) => {
			await run({ resource: 'account', operation: 'get', options: FAST });
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '503', retryAfterSeconds: 0, count: 1 });
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind, retryAfterSeconds: 0, count: 5 });
			const item = await expectFailure(payout({ amount: 3390, options: { maxRetries: 2, retryBaseDelayMs: 1 } }), code, status);
			expect(String(item.description)).toContain('An earlier attempt of this request got HTTP 503');
			expectUncertain(item.description);
		});

		it('creates exactly one payout with n8n Retry On Fail after a dropped connection', async () => {
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
			const result = await run(payout({ amount: 3434, options: { maxRetries: 0 } }), {
				settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			});
			expect(result.error()).toBeUndefined();
			const item = json(result);
			const ledger = await env.sb.control.ledger();
			expect(ledger.payouts.filter((entry) => entry.idempotency_key === item.idempotency_key)).toHaveLength(1);
			expect(ledger.payouts.filter((entry) => entry.amount.value === -3434)).toHaveLength(1);
		});

		it('keeps one payout per business reference across whole-workflow re-runs', async () => {
			const parameters = payout({ amount: 3535, businessReference: 'order-rerun-1' });
			const first = json(await run(parameters));
			const second = json(await run(parameters));
			expect(second.reference).toBe(first.reference);
			const ledger = await env.sb.control.ledger();
			expect(ledger.payouts.filter((entry) => entry.amount.value === -3535)).toHaveLength(1);
		});

		it('runs 150 items with Continue On Fail: failures become error items, the rest go on', async () => {
			const items: INodeExecutionData[] = Array.from({ length: 150 }, (_, index) => ({
				json: {
					identifier: index % 10 === 3 ? 'GM-0000' : 'GM-1002',
					amount: index % 25 === 7 ? -1 : 1000 + index,
				},
			}));
			const result = await run(
				payout({ beneficiaryIdentifier: '={{ $json.identifier }}', amount: '={{ $json.amount }}' }),
				{ items, settings: CONTINUE },
			);
			const output = result.output('Money');
			expect(output).toHaveLength(150);
			output.forEach((item, index) => {
				expect(item.pairedItem).toEqual({ item: index });
				if (index % 25 === 7) expect(item.json).toMatchObject({ field: 'amount', error_code: null });
				else if (index % 10 === 3) expect(item.json).toMatchObject({ error_code: 'BENEFICIARY_NOT_FOUND', httpCode: 404 });
				else expect(item.json).toMatchObject({ outcome: 'created', reference: expect.any(String) });
			});
			const succeeded = output.filter((item) => item.json.outcome === 'created');
			const keys = new Set(succeeded.map((item) => item.json.idempotency_key));
			expect(keys.size).toBe(succeeded.length);
		});

		it('encrypts the PIN with the credential public key (RSA-OAEP SHA-256)', async () => {
			env.engine.credentials.set('rsa', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { rsaPublicKey: env.sb.info.rsaPublicKeyPem }));
			const item = json(await run(payout({ amount: 3636 }), { credentialId: 'rsa' }));
			expect(item.reference).toBeDefined();

			const { publicKey } = generateKeyPairSync('rsa', {
				modulusLength: 2048,
				publicKeyEncoding: { type: 'spki', format: 'pem' },
				privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
			});
			env.engine.credentials.set('wrong-rsa', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { rsaPublicKey: publicKey }));
			const refused = json(await run(payout({ amount: 3637 }), { credentialId: 'wrong-rsa', settings: CONTINUE }));
			expect(refused).toMatchObject({ httpCode: 400 });
		});
	});
});

describe('a 503 after the API committed, then a velocity refusal, then the resend', () => {
	/*
	 * The first attempt of a payout reaches the API, which commits it, and the answer is a 503; the
	 * node's retry meets a velocity refusal, waits it out and calls again under the same key. The
	 * unanswered attempt is counted across those calls (CreateRun.sendPaced): the API may hold the
	 * payout whatever the later calls say.
	 */
	it('reports the payout the replayed answer comes from as created, not replayed', async () => {
		const amount = 61_001;
		await withFront(env, ['forward-then-503', VELOCITY_REFUSAL, 'forward'], async (credentialId) => {
			const result = await run(payout({ amount, options: { maxRetries: 1, retryBaseDelayMs: 1 } }), { credentialId });
			expect(await paidWith(env, amount)).toBe(1);
			expect(json(result).outcome).toBe('created');
		});
	});

	it('says the money may have moved when the resend is refused (402 checked before the idempotency record)', async () => {
		const amount = 61_002;
		const insufficient: Step = { status: 402, body: { success: false, error_code: 'INSUFFICIENT_FUNDS', message: 'payout amount exceeds the available balance', available_balance: 0 } };
		await withFront(env, ['forward-then-503', VELOCITY_REFUSAL, insufficient], async (credentialId) => {
			const result = await run(payout({ amount, options: { maxRetries: 1, retryBaseDelayMs: 1 } }), { credentialId, settings: CONTINUE });
			expect(await paidWith(env, amount)).toBe(1);
			const item = json(result);
			expect(item.outcome).toBe('failed');
			expect(item.attempted).toBeUndefined();
			expect(String(item.description)).toContain('The money may have moved');
		});
	});

	it('does not report a payout stopped during the velocity wait as not sent', async () => {
		const amount = 61_003;
		await withFront(env, ['forward-then-503', VELOCITY_REFUSAL], async (credentialId, seen) => {
			let stopped: Promise<void> | undefined;
			const result = await runMoneyNode(env.engine, {
				parameters: payout({ amount, requireBusinessReference: false, options: { maxRetries: 1, retryBaseDelayMs: 1 } }) as never,
				credentialId,
				settings: CONTINUE,
				mode: 'trigger',
				onStart: (stop) => {
					stopped = (async () => {
						while (seen() < 2) await new Promise((resolve) => setTimeout(resolve, 10));
						await new Promise((resolve) => setTimeout(resolve, 200));
						stop();
					})();
				},
			});
			await stopped;
			expect(await paidWith(env, amount)).toBe(1);
			const item = result.output('Money')[0]?.json as IDataObject;
			expect(item.cancelled).toBe(true);
			expect(item.attempted).toBeUndefined();
			expect(String(item.description)).toContain('The money may have moved');
		});
	});
});

describe('a payout whose access token could not be fetched', () => {
	it('says it was not sent, never that the money may have moved, when the token host cannot be reached', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const id = 'money-token-host-down';
		env.engine.credentials.set(id, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { tokenUrl: `http://127.0.0.1:${port}`, accessToken: '', velocityLimit: 1000 }));
		const item = json(await run(payout({ amount: 65_001, options: { maxRetries: 0 } }), { credentialId: id, settings: CONTINUE }));
		expect(item.outcome).toBe('failed');
		expect(await paidWith(env, 65_001)).toBe(0);
		expect(String(item.error)).toMatch(/^Money API token request failed: the token host could not be reached; check the Token URL/);
		expect(String(item.description)).toContain('nothing was sent to the Money API');
		expect(String(item.description)).not.toContain('The money may have moved');
	});
});

describe('what a Retry reports', () => {
	/*
	 * The specification (section 5.6) says a repeated key "returns the original cached response" and
	 * names no replay header: the node's memory (accepted under this key in the run the Retry
	 * repeats) says that nothing moved now.
	 */
	it('reports rows paid in the run it repeats as replayed, also when the API marks no replay', async () => {
		await withFront(
			env,
			[],
			async (credentialId) => {
				const amounts = [63_001, 63_002, 900_063];
				const start: INode = { id: 'start', name: 'Start', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };
				const money = moneyNode({ parameters: payout({ amount: '={{ $json.amount }}', beneficiaryIdentifier: '={{ $json.identifier }}', requireBusinessReference: false, options: { maxRetries: 0 } }) as never, credentialId });
				const workflow = buildWorkflow(env.engine, { nodes: [start, money], connections: { Start: { main: [[{ node: money.name, type: 'main', index: 0 }]] } } });
				await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
				const items = [['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]].map(([identifier, amount]) => ({ json: { identifier, amount } }));
				const failed = await runWorkflow(env.engine, workflow, { items, mode: 'trigger' });
				expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
				await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
				const retried = await retryExecution(env.engine, workflow, failed);
				expect(await Promise.all(amounts.map((amount) => paidWith(env, amount)))).toEqual([1, 1, 1]);
				expect(retried.output('Money').map((item) => item.json.outcome)).toEqual(['replayed', 'replayed', 'created']);
			},
			{ replayHeader: false },
		);
	});
});
