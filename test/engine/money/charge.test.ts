import { CREDENTIAL_TYPE, credentialFromSandbox } from '../../harness/engine';
import { CONTINUE, FAST, UUID, useMoneyNode } from './setup';

/*
 * The Money node's Charge operations against the sandbox: create, get, get many, and the API's refusals.
 */
const env = useMoneyNode();
const { run, json, charge, expectFailure } = env;

describe('Money node against the sandbox', () => {
	describe('charge', () => {
		it('creates a charge on platform with an idempotency key and a redirect link', async () => {
			const item = json(await run(charge()));
			expect(item).toMatchObject({ outcome: 'created', status: 'PENDING', payer_identifier: 'GM-1001', payer_identifier_type: 'gm_account', reference: expect.any(String), resource: 'charge' });
			expect(item).not.toHaveProperty('success');
			expect(item.redirect_link).toEqual(expect.stringMatching(/^https?:\/\//));
			expect(item.idempotency_key).toMatch(UUID);
			const ledger = await env.sb.control.ledger();
			const stored = ledger.charges.find((entry) => entry.reference === item.reference);
			expect(stored?.idempotency_key).toBe(item.idempotency_key);
			expect(stored?.amount.value).toBe(5000);
		});

		it('sends every optional field, the metadata and a PNG document', async () => {
			const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
			const result = await run(
				charge({
					payerIdentifierType: 'phone',
					payerIdentifier: '+22890000001',
					channel: 'psp-a-tg',
					payerAccountType: 'Client',
					additionalFields: {
						accountNumber: env.sb.info.merchantAccountNumber,
						message: 'Invoice 77',
						paymentReferenceNumber: 'INV-77',
						paymentReferenceDocumentField: 'receipt',
						metadata: { entries: [{ key: 'order', value: '77' }] },
					},
				}),
				{ items: [{ json: {}, binary: { receipt: { data: png.toString('base64'), mimeType: 'image/png' } } }] },
			);
			const item = json(result);
			expect(item.redirect_link).toBeUndefined();
			const stored = (await env.sb.control.ledger()).charges.find((entry) => entry.reference === item.reference);
			expect(stored?.metadata).toEqual({ order: '77' });
			expect(stored?.payment_references[0]).toMatchObject({
				ref_number: 'INV-77',
				document: { content_type: 'image/png', size: png.length },
			});
			expect(stored?.shared_note).toBe('Invoice 77');
		});

		it('gets a charge, raw and simplified, following its status', async () => {
			const reference = String(json(await run(charge())).reference);
			const pending = json(await run({ resource: 'charge', operation: 'get', reference, simplify: false, options: FAST }));
			expect(pending).toMatchObject({ reference, status: { label: 'PENDING' }, amount: { value: 5000, currency: 'XOF' } });

			await env.sb.control.setStatus(reference, 'COMPLETED');
			const simple = json(
				await run({ resource: 'charge', operation: 'get', reference, options: FAST }),
			);
			expect(simple).toMatchObject({ reference, status: 'COMPLETED', amount: 5000, currency: 'XOF', counterpart_identifier: 'GM-1001' });
		});

		it('reads many references with bounded concurrency, keeping the input order', async () => {
			const references: string[] = [];
			for (let index = 0; index < 6; index++) references.push(String(json(await run(charge({ amount: 1000 + index }))).reference));
			const result = await run(
				{ resource: 'charge', operation: 'get', reference: '={{ $json.reference }}', options: { ...FAST, concurrency: 4 } },
				{ items: references.map((reference) => ({ json: { reference } })) },
			);
			expect(result.output('Money').map((item) => item.json.reference)).toEqual(references);
			expect(result.output('Money').map((item) => item.pairedItem)).toEqual(references.map((_, item) => ({ item })));
		});

		it('reads 8 items at a time when Concurrency is not set, as the HTTP Request node sends its items without waiting', async () => {
			const references: string[] = [];
			for (let index = 0; index < 16; index++) references.push(String(json(await run(charge({ amount: 1000 + index }))).reference));
			await env.sb.control.addFault({ route: 'get_money_v1_charge_reference', kind: 'delay', delayMs: 400 });
			const started = Date.now();
			const result = await run(
				{ resource: 'charge', operation: 'get', reference: '={{ $json.reference }}', options: FAST },
				{ items: references.map((reference) => ({ json: { reference } })) },
			);
			await env.sb.control.clearFaults();
			expect(result.output('Money').map((item) => item.json.reference)).toEqual(references);
			// 16 reads of 400 ms: one at a time 6.4 s, 8 at a time two rounds.
			expect(Date.now() - started).toBeLessThan(8 * 400);
		});

		it('fetches one token when a Get of 16 items at the default Concurrency starts on a credential that has none yet', async () => {
			const references: string[] = [];
			for (let index = 0; index < 16; index++) references.push(String(json(await run(charge({ amount: 2000 + index }))).reference));
			env.engine.credentials.set('no-token-yet', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info));
			const before = (await env.sb.control.counters()).tokenRequests;
			const result = await run(
				{ resource: 'charge', operation: 'get', reference: '={{ $json.reference }}', options: FAST },
				{ items: references.map((reference) => ({ json: { reference } })), credentialId: 'no-token-yet' },
			);
			expect(result.output('Money').map((item) => item.json.reference)).toEqual(references);
			expect((await env.sb.control.counters()).tokenRequests - before).toBe(1);
		});

		it('lists charges with a limit and filters, one item per charge', async () => {
			await env.sb.control.seed({ resource: 'charge', count: 30, status: 'FAILED', channel: 'psp-b-tg' });
			const result = await run({
				resource: 'charge',
				operation: 'getAll',
				returnAll: false,
				limit: 7,
				filters: { status: 'FAILED', channel: 'psp-b-tg', startDate: '2000-01-01T00:00:00', endDate: '2100-01-01T00:00:00Z' },
				simplify: false,
				options: FAST,
			});
			const items = result.output('Money');
			expect(items).toHaveLength(7);
			for (const item of items) {
				expect(item.json).toMatchObject({ status: { label: 'FAILED' } });
				expect(item.pairedItem).toEqual({ item: 0 });
			}
		});

		it('returns all charges across pages, the status checked on every charge of the window', async () => {
			await env.sb.control.seed({ resource: 'charge', count: 230, status: 'CANCELLED', channel: 'psp-a-tg' });
			const ledger = await env.sb.control.ledger();
			const expected = ledger.charges.filter((entry) => entry.status.label === 'CANCELLED').length;
			await run({ resource: 'account', operation: 'get', options: FAST });
			const before = (await env.sb.control.counters()).requests.get_money_v1_charge_list ?? 0;
			const result = await run({
				resource: 'charge',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'CANCELLED' },
				options: FAST,
			});
			const items = result.output('Money');
			expect(items).toHaveLength(expected);
			expect(new Set(items.map((item) => item.json.reference)).size).toBe(expected);
			expect(items[0].json).toMatchObject({ status: 'CANCELLED' });
			// Return All walks the status-free window, each page after the first starting with the instant the last one
			// ended at, checks the status on each charge, and counts the window once more (docs/decisions.md#d11).
			const requests = (await env.sb.control.counters()).requests.get_money_v1_charge_list - before;
			expect(requests).toBe(Math.ceil((ledger.charges.length - 1) / 99) + 1);
		});

		it.each([
			['VALIDATION_ERROR', 400, { additionalFields: { paymentReferenceNumber: 'R'.repeat(150) } }],
			['PAYER_NOT_FOUND', 404, { payerIdentifier: 'GM-0000' }],
			['PAYER_NOT_ELIGIBLE', 400, { payerIdentifier: 'GM-1099' }],
		])('maps %s from create charge', async (code, status, overrides) => {
			const item = await expectFailure(charge(overrides), code, status);
			if (code === 'VALIDATION_ERROR') {
				expect(item.details).toHaveProperty(['payment_reference.ref_number']);
				expect(String(item.description)).toContain('payment_reference.ref_number');
			}
		});

		it.each([
			[{ hasPrimaryWallet: false }, 'MERCHANT_ACCOUNT_NOT_CONFIGURED', 400],
			[{ profileIncomplete: true }, 'MERCHANT_PROFILE_INCOMPLETE', 400],
			[{ merchantResolvable: false }, 'MERCHANT_NOT_RESOLVED', 403],
			[{ linked: false }, 'SEC_ENDPOINT_NOT_AUTHORIZED', 403],
		])('maps merchant state %j to %s', async (patch, code, status) => {
			await env.sb.control.updateClient(env.sb.info.clientId, patch);
			await expectFailure(charge(), code, status);
		});

		it('maps SEC_ENDPOINT_NOT_AUTHORIZED and names the slug to ask for', async () => {
			await env.sb.control.updateClient(env.sb.info.clientId, { entitlements: ['get_money_v1_account'] });
			await env.sb.control.revokeTokens();
			const item = await expectFailure(charge(), 'SEC_ENDPOINT_NOT_AUTHORIZED', 403);
			expect(String(item.description)).toContain('entitle');
		});

		it('maps IDEMPOTENCY_CONFLICT when a business reference is reused with other values', async () => {
			const first = json(await run(charge({ businessReference: 'order-conflict-1' })));
			expect(first.reference).toBeDefined();
			const replay = json(await run(charge({ businessReference: 'order-conflict-1' })));
			expect(replay.reference).toBe(first.reference);
			expect(replay.idempotency_key).toBe(first.idempotency_key);
			const item = await expectFailure(charge({ businessReference: 'order-conflict-1', amount: 9999 }), 'IDEMPOTENCY_CONFLICT', 409);
			expect(String(item.description)).toContain('Business Reference');
			const ledger = await env.sb.control.ledger();
			expect(ledger.charges.filter((entry) => entry.idempotency_key === first.idempotency_key)).toHaveLength(1);
		});

		it('maps CHARGE_NOT_FOUND', async () => {
			await expectFailure({ resource: 'charge', operation: 'get', reference: 'nope-123', options: FAST }, 'CHARGE_NOT_FOUND', 404);
		});

		it('retries 429 honouring Retry-After, then succeeds', async () => {
			await env.sb.control.addFault({ route: 'post_money_v1_charge', kind: '429', count: 1, retryAfterSeconds: 1 });
			const started = Date.now();
			const item = json(await run(charge()));
			expect(item.reference).toBeDefined();
			expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		});

		it('gives up on a persistent 429 and on a persistent 503 with the code', async () => {
			await env.sb.control.addFault({ route: 'post_money_v1_charge', kind: '429', retryAfterSeconds: 0 });
			await expectFailure(charge({ options: { maxRetries: 1, retryBaseDelayMs: 1 } }), 'rate_limit_exceeded', 429);
			await env.sb.control.clearFaults();
			await env.sb.control.addFault({ route: 'post_money_v1_charge', kind: '503' });
			await expectFailure(charge(), 'PROVIDER_UNAVAILABLE', 503);
			expect((await env.sb.control.ledger()).charges.filter((entry) => entry.amount.value === 4321)).toHaveLength(0);
		});

		it('maps a 401 from a wrong HMAC secret', async () => {
			env.engine.credentials.set('bad-hmac', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { hmacSecret: 'not-the-right-secret' }));
			const result = await run(charge(), { settings: CONTINUE, credentialId: 'bad-hmac' });
			expect(json(result)).toMatchObject({ httpCode: 401, error_code: 'unauthorized' });
			expect(String(json(result).description)).toContain('HMAC Secret');
		});

		it('reports a refused token request without sending the call', async () => {
			env.engine.credentials.set('bad-secret', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { clientSecret: 'wrong-client-secret' }));
			const before = (await env.sb.control.counters()).requests.post_money_v1_charge ?? 0;
			const item = json(await run(charge(), { settings: CONTINUE, credentialId: 'bad-secret' }));
			expect(String(item.error)).toContain('invalid_client');
			expect(String(item.description)).toContain('Client Secret');
			expect((await env.sb.control.counters()).requests.post_money_v1_charge ?? 0).toBe(before);
		});

		it('says the clock is off when the server rejects the timestamp (D5)', async () => {
			await env.sb.control.setClockOffset(900);
			const result = await run({ resource: 'account', operation: 'get', options: FAST }, { settings: CONTINUE });
			expect(json(result).httpCode).toBe(401);
			expect(String(json(result).error)).toMatch(/clock is (8[5-9]\d|9\d\d) s behind/);
		});
	});
});
