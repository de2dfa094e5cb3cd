import { generateKeyPairSync } from 'node:crypto';

import type { IDataObject, INodeExecutionData, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import {
	buildWorkflow,
	CREDENTIAL_ID,
	credentialFromSandbox,
	type Engine,
	loadEngine,
	MONEY_NODE,
	moneyNode,
	type RunResult,
	runMoneyNode,
	runWorkflow,
} from '../harness/engine';
import { findSecrets, type SecretSet } from '../harness/secrets';

const PIN = '48151623';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FAST = { maxRetries: 3, retryBaseDelayMs: 2 };
const CONTINUE = { onError: 'continueRegularOutput' as const };

let sb: Sandbox;
let engine: Engine;
const scanned: unknown[] = [];
const accessTokens = new Set<string>();

function secrets(): SecretSet {
	return {
		clientSecret: sb.info.clientSecret,
		apiKey: sb.info.apiKey,
		hmacSecret: sb.info.hmacSecret,
		webhookSecret: sb.info.webhookSecret,
		pin: PIN,
		accessTokens: [...accessTokens],
	};
}

function remember(result: RunResult): RunResult {
	const token = engine.credentials.stored(CREDENTIAL_ID).accessToken;
	if (typeof token === 'string' && token) accessTokens.add(token);
	scanned.push(result.run);
	expect(findSecrets(result.run, secrets())).toEqual([]);
	return result;
}

type Parameters = IDataObject;

async function run(
	parameters: Parameters,
	options: {
		items?: INodeExecutionData[];
		settings?: Parameters;
		executionId?: string;
		credentialId?: string;
	} = {},
): Promise<RunResult> {
	return remember(
		await runMoneyNode(engine, {
			parameters: parameters as never,
			items: options.items,
			settings: options.settings as never,
			executionId: options.executionId,
			credentialId: options.credentialId,
		}),
	);
}

const json = (result: RunResult, index = 0): IDataObject => result.output('Money')[index]?.json as IDataObject;

function charge(overrides: Parameters = {}): Parameters {
	return {
		resource: 'charge',
		operation: 'create',
		amount: 5000,
		currency: 'XOF',
		identifierType: 'gm_account',
		identifier: 'GM-1001',
		channel: 'platform',
		accountType: '',
		options: FAST,
		...overrides,
	};
}

function payout(overrides: Parameters = {}): Parameters {
	return { ...charge(), resource: 'payout', identifier: 'GM-1002', ...overrides };
}

async function expectFailure(parameters: Parameters, errorCode: string | null, httpCode: number | null) {
	const result = await run(parameters, { settings: CONTINUE });
	const item = json(result);
	expect(item).toMatchObject({ error_code: errorCode, httpCode });
	expect(String(item.error)).toContain(errorCode ?? String(httpCode));
	expect(typeof item.description).toBe('string');
	expect(result.output('Money')[0].pairedItem).toEqual({ item: 0 });
	return item;
}

async function restoreClient() {
	await sb.control.clearFaults();
	await sb.control.setClockOffset(0);
	await sb.control.updateClient(sb.info.clientId, {
		entitlements: [
			'post_money_v1_charge',
			'get_money_v1_charge_reference',
			'get_money_v1_charge_list',
			'post_money_v1_payout',
			'get_money_v1_payout_reference',
			'get_money_v1_payout_list',
			'get_money_v1_transaction_details_id',
			'get_money_v1_account',
		],
		linked: true,
		hasPrimaryWallet: true,
		profileIncomplete: false,
		merchantResolvable: true,
		walletRetrievable: true,
		limits: { minAmount: 100, maxAmount: 5_000_000, velocityLimit: 1000, dailyCap: 500_000_000, monthlyCap: 5_000_000_000 },
		balance: 100_000_000,
	});
	await sb.control.revokeTokens();
}

beforeAll(async () => {
	sb = await startSandbox({ finalizeAfterMs: null, config: { clients: [{ pin: PIN }] } });
	engine = await loadEngine();
	// The sandbox's velocity limit is raised to 1000 below; the credential says so, or the node would pace to 20 per 5 minutes.
	engine.credentials.set(CREDENTIAL_ID, 'moneyApi', credentialFromSandbox(sb.info, { velocityLimit: 1000 }));
	await restoreClient();
});

afterEach(async () => {
	await restoreClient();
});

afterAll(async () => {
	await sb?.close();
});

describe('Money node against the sandbox', () => {
	describe('account', () => {
		it('gets the merchant account, raw and simplified', async () => {
			const raw = json(await run({ resource: 'account', operation: 'get', options: FAST }));
			expect(raw).toMatchObject({ id: expect.any(String), name: expect.any(String), status: 'active' });
			expect((raw.account as IDataObject).number).toBe(sb.info.merchantAccountNumber);
			expect(raw.success).toBeUndefined();

			const simple = json(await run({ resource: 'account', operation: 'get', options: { ...FAST, simplify: true } }));
			expect(simple).toMatchObject({ account_number: sb.info.merchantAccountNumber, currency: 'XOF', balance: expect.any(Number) });
		});

		it.each([
			[{ hasPrimaryWallet: false }, 'merchant_account_not_configured', 400],
			[{ profileIncomplete: true }, 'merchant_profile_incomplete', 400],
			[{ linked: false }, 'merchant_not_linked', 403],
			[{ merchantResolvable: false }, 'merchant_not_resolved', 403],
			[{ walletRetrievable: false }, 'account_not_found', 404],
		])('maps %j to %s', async (patch, code, status) => {
			await sb.control.updateClient(sb.info.clientId, patch);
			await expectFailure({ resource: 'account', operation: 'get', options: FAST }, code, status);
		});

		it('retries 502 service_unavailable and gives up with the code after the retries', async () => {
			await sb.control.addFault({ route: 'get_money_v1_account', kind: '502', count: 1 });
			expect(json(await run({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();

			await sb.control.addFault({ route: 'get_money_v1_account', kind: '502' });
			const before = (await sb.control.counters()).requests.get_money_v1_account ?? 0;
			const item = await expectFailure({ resource: 'account', operation: 'get', options: FAST }, 'service_unavailable', 502);
			expect(String(item.description)).toContain('retried');
			expect((await sb.control.counters()).requests.get_money_v1_account - before).toBe(4);
		});

		it('reports forbidden when the client is not entitled (new token)', async () => {
			await sb.control.updateClient(sb.info.clientId, { entitlements: ['post_money_v1_charge'] });
			await sb.control.revokeTokens();
			await expectFailure({ resource: 'account', operation: 'get', options: FAST }, 'forbidden', 403);
		});
	});

	describe('charge', () => {
		it('creates a charge on platform with an idempotency key and a redirect link', async () => {
			const item = json(await run(charge()));
			expect(item).toMatchObject({ success: true, reference: expect.any(String), resource: 'charge' });
			expect(item.redirect_link).toEqual(expect.stringMatching(/^https?:\/\//));
			expect(item.idempotency_key).toMatch(UUID);
			const ledger = await sb.control.ledger();
			const stored = ledger.charges.find((entry) => entry.reference === item.reference);
			expect(stored?.idempotency_key).toBe(item.idempotency_key);
			expect(stored?.amount.value).toBe(5000);
		});

		it('sends every optional field, the metadata and a PNG document', async () => {
			const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
			const result = await run(
				charge({
					identifierType: 'phone',
					identifier: '+22890000001',
					channel: 'psp-a-tg',
					accountType: 'Client',
					additionalFields: {
						accountNumber: sb.info.merchantAccountNumber,
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
			const stored = (await sb.control.ledger()).charges.find((entry) => entry.reference === item.reference);
			expect(stored?.metadata).toEqual({ order: '77' });
			expect(stored?.payment_references[0]).toMatchObject({
				ref_number: 'INV-77',
				document: { content_type: 'image/png', size: png.length },
			});
			expect(stored?.shared_note).toBe('Invoice 77');
		});

		it('gets a charge, raw and simplified, following its status', async () => {
			const reference = String(json(await run(charge())).reference);
			const pending = json(await run({ resource: 'charge', operation: 'get', reference, options: FAST }));
			expect(pending).toMatchObject({ reference, status: { label: 'PENDING' }, amount: { value: 5000, currency: 'XOF' } });

			await sb.control.setStatus(reference, 'COMPLETED');
			const simple = json(
				await run({ resource: 'charge', operation: 'get', reference, options: { ...FAST, simplify: true } }),
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

		it('lists charges with a limit and filters, one item per charge', async () => {
			await sb.control.seed({ resource: 'charge', count: 30, status: 'FAILED', channel: 'psp-b-tg' });
			const result = await run({
				resource: 'charge',
				operation: 'getAll',
				returnAll: false,
				limit: 7,
				filters: { status: 'FAILED', channel: 'psp-b-tg', startDate: '2000-01-01T00:00:00', endDate: '2100-01-01T00:00:00Z' },
				options: FAST,
			});
			const items = result.output('Money');
			expect(items).toHaveLength(7);
			for (const item of items) {
				expect(item.json).toMatchObject({ status: { label: 'FAILED' } });
				expect(item.pairedItem).toEqual({ item: 0 });
			}
		});

		it('returns all charges across pages', async () => {
			await sb.control.seed({ resource: 'charge', count: 230, status: 'CANCELLED', channel: 'psp-a-tg' });
			const ledger = await sb.control.ledger();
			const expected = ledger.charges.filter((entry) => entry.status.label === 'CANCELLED').length;
			await run({ resource: 'account', operation: 'get', options: FAST });
			const before = (await sb.control.counters()).requests.get_money_v1_charge_list ?? 0;
			const result = await run({
				resource: 'charge',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'CANCELLED' },
				options: { ...FAST, simplify: true },
			});
			const items = result.output('Money');
			expect(items).toHaveLength(expected);
			expect(new Set(items.map((item) => item.json.reference)).size).toBe(expected);
			expect(items[0].json).toMatchObject({ status: 'CANCELLED' });
			expect((await sb.control.counters()).requests.get_money_v1_charge_list - before).toBe(Math.ceil(expected / 100));
		});

		it.each([
			['VALIDATION_ERROR', 400, { additionalFields: { paymentReferenceNumber: 'R'.repeat(150) } }],
			['PAYER_NOT_FOUND', 404, { identifier: 'GM-0000' }],
			['PAYER_NOT_ELIGIBLE', 400, { identifier: 'GM-1099' }],
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
			await sb.control.updateClient(sb.info.clientId, patch);
			await expectFailure(charge(), code, status);
		});

		it('maps SEC_ENDPOINT_NOT_AUTHORIZED and names the slug to ask for', async () => {
			await sb.control.updateClient(sb.info.clientId, { entitlements: ['get_money_v1_account'] });
			await sb.control.revokeTokens();
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
			const ledger = await sb.control.ledger();
			expect(ledger.charges.filter((entry) => entry.idempotency_key === first.idempotency_key)).toHaveLength(1);
		});

		it('maps CHARGE_NOT_FOUND', async () => {
			await expectFailure({ resource: 'charge', operation: 'get', reference: 'nope-123', options: FAST }, 'CHARGE_NOT_FOUND', 404);
		});

		it('retries 429 honouring Retry-After, then succeeds', async () => {
			await sb.control.addFault({ route: 'post_money_v1_charge', kind: '429', count: 1, retryAfterSeconds: 1 });
			const started = Date.now();
			const item = json(await run(charge()));
			expect(item.reference).toBeDefined();
			expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		});

		it('gives up on a persistent 429 and on a persistent 503 with the code', async () => {
			await sb.control.addFault({ route: 'post_money_v1_charge', kind: '429', retryAfterSeconds: 0 });
			await expectFailure(charge({ options: { maxRetries: 1, retryBaseDelayMs: 1 } }), 'rate_limit_exceeded', 429);
			await sb.control.clearFaults();
			await sb.control.addFault({ route: 'post_money_v1_charge', kind: '503' });
			await expectFailure(charge(), 'PROVIDER_UNAVAILABLE', 503);
			expect((await sb.control.ledger()).charges.filter((entry) => entry.amount.value === 4321)).toHaveLength(0);
		});

		it('maps a 401 from a wrong HMAC secret', async () => {
			engine.credentials.set('bad-hmac', 'moneyApi', credentialFromSandbox(sb.info, { hmacSecret: 'not-the-right-secret' }));
			const result = await run(charge(), { settings: CONTINUE, credentialId: 'bad-hmac' });
			expect(json(result)).toMatchObject({ httpCode: 401, error_code: 'unauthorized' });
			expect(String(json(result).description)).toContain('HMAC Secret');
		});

		it('reports a refused token request without sending the call', async () => {
			engine.credentials.set('bad-secret', 'moneyApi', credentialFromSandbox(sb.info, { clientSecret: 'wrong-client-secret' }));
			const before = (await sb.control.counters()).requests.post_money_v1_charge ?? 0;
			const item = json(await run(charge(), { settings: CONTINUE, credentialId: 'bad-secret' }));
			expect(String(item.error)).toContain('invalid_client');
			expect(String(item.description)).toContain('Client Secret');
			expect((await sb.control.counters()).requests.post_money_v1_charge ?? 0).toBe(before);
		});

		it('says the clock is off when the server rejects the timestamp (D5)', async () => {
			await sb.control.setClockOffset(900);
			const result = await run({ resource: 'account', operation: 'get', options: FAST }, { settings: CONTINUE });
			expect(json(result).httpCode).toBe(401);
			expect(String(json(result).error)).toMatch(/clock is (8[5-9]\d|9\d\d) s behind/);
		});
	});

	describe('payout', () => {
		it('creates, gets and lists payouts, REVERSED included', async () => {
			const created = json(await run(payout({ amount: 2500 })));
			expect(created).toMatchObject({ success: true, reference: expect.any(String), resource: 'payout' });
			expect(created.idempotency_key).toMatch(UUID);

			const fetched = json(await run({ resource: 'payout', operation: 'get', reference: created.reference, options: FAST }));
			expect(fetched).toMatchObject({ reference: created.reference, amount: { value: -2500 } });

			await sb.control.setStatus(String(created.reference), 'COMPLETED');
			await sb.control.setStatus(String(created.reference), 'REVERSED');
			const listed = await run({
				resource: 'payout',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'REVERSED' },
				options: FAST,
			});
			expect(listed.output('Money').map((item) => item.json.reference)).toContain(created.reference);
		});

		it('waits for the final status when asked', async () => {
			await sb.control.setFinalizeAfter(150);
			const done = json(
				await run(payout({ options: { ...FAST, waitForFinalStatus: true, pollIntervalMs: 50, waitTimeoutSeconds: 10 } })),
			);
			expect(done).toMatchObject({ final_status_reached: true, status: expect.stringMatching(/COMPLETED|FAILED|CANCELLED/) });
			await sb.control.setFinalizeAfter(null);

			const pending = json(
				await run(payout({ options: { ...FAST, waitForFinalStatus: true, pollIntervalMs: 100, waitTimeoutSeconds: 1 } })),
			);
			expect(pending).toMatchObject({ final_status_reached: false, status: 'PENDING' });
		});

		it.each([
			['VALIDATION_ERROR', 400, { additionalFields: { paymentReferenceNumber: 'R'.repeat(150) } }, {}],
			['BENEFICIARY_NOT_FOUND', 404, { identifier: 'GM-0000' }, {}],
			['BENEFICIARY_NOT_ELIGIBLE', 400, { identifier: 'GM-1099' }, {}],
			['INSUFFICIENT_FUNDS', 402, { amount: 6000 }, { balance: 5000 }],
			['LIMIT_EXCEEDED', 403, { amount: 4000 }, { limits: { maxAmount: 3000 } }],
		])('maps %s from create payout', async (code, status, overrides, patch) => {
			await sb.control.updateClient(sb.info.clientId, patch);
			const item = await expectFailure(payout(overrides), code, status);
			if (code === 'INSUFFICIENT_FUNDS') {
				expect(item.details).toMatchObject({ available_balance: 5000 });
				expect(String(item.description)).toContain('available_balance: 5000');
			}
			if (code === 'LIMIT_EXCEEDED') expect(String(item.description)).toContain('max_amount: 3000');
		});

		it('maps the velocity limit as LIMIT_EXCEEDED with On Velocity Limit = Fail the Item', async () => {
			const alreadyInWindow = (await sb.control.ledger()).payouts.length;
			await sb.control.updateClient(sb.info.clientId, { limits: { velocityLimit: alreadyInWindow + 2 } });
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
			await sb.control.addFault({ route: 'post_money_v1_payout', kind: '429', retryAfterSeconds: 0 });
			await expectFailure(payout({ options: { maxRetries: 1, retryBaseDelayMs: 1 } }), 'rate_limit_exceeded', 429);
			await sb.control.clearFaults();
			await sb.control.addFault({ route: 'post_money_v1_payout', kind: '503' });
			await expectFailure(payout(), 'PROVIDER_UNAVAILABLE', 503);
			await sb.control.clearFaults();
			await sb.control.addFault({ route: 'post_money_v1_payout', kind: '502' });
			await expectFailure(payout(), 'UPSTREAM_ERROR', 502);
		});

		it('maps 401, IDEMPOTENCY_CONFLICT and an unretried 500 INTERNAL_ERROR on create payout', async () => {
			engine.credentials.set('bad-hmac', 'moneyApi', credentialFromSandbox(sb.info, { hmacSecret: 'not-the-right-secret' }));
			const unauthorized = json(await run(payout(), { settings: CONTINUE, credentialId: 'bad-hmac' }));
			expect(unauthorized).toMatchObject({ httpCode: 401, error_code: 'unauthorized' });

			expect(json(await run(payout({ amount: 2222, businessReference: 'payout-conflict-1' }))).reference).toBeDefined();
			await expectFailure(payout({ amount: 2223, businessReference: 'payout-conflict-1' }), 'IDEMPOTENCY_CONFLICT', 409);

			await sb.control.addFault({ route: 'post_money_v1_payout', kind: '500' });
			const before = (await sb.control.counters()).requests.post_money_v1_payout ?? 0;
			await expectFailure(payout(), 'INTERNAL_ERROR', 500);
			expect((await sb.control.counters()).requests.post_money_v1_payout - before).toBe(1);
		});

		it('retries a connection dropped before the commit on a read', async () => {
			await sb.control.addFault({ route: 'get_money_v1_account', kind: 'drop', count: 2 });
			expect(json(await run({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();
		});

		it('creates exactly one payout when the connection drops after the commit and the node retries', async () => {
			await sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
			const item = json(await run(payout({ amount: 3333 })));
			expect(item.reference).toBeDefined();
			const counters = await sb.control.counters();
			expect(counters.createsByIdempotencyKey[String(item.idempotency_key)]).toBe(1);
			const ledger = await sb.control.ledger();
			expect(ledger.payouts.filter((entry) => entry.idempotency_key === item.idempotency_key)).toHaveLength(1);
		});

		it('creates exactly one payout with n8n Retry On Fail after a dropped connection', async () => {
			await sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
			const result = await run(payout({ amount: 3434, options: { maxRetries: 0 } }), {
				settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
			});
			expect(result.error()).toBeUndefined();
			const item = json(result);
			const ledger = await sb.control.ledger();
			expect(ledger.payouts.filter((entry) => entry.idempotency_key === item.idempotency_key)).toHaveLength(1);
			expect(ledger.payouts.filter((entry) => entry.amount.value === -3434)).toHaveLength(1);
		});

		it('keeps one payout per business reference across whole-workflow re-runs', async () => {
			const parameters = payout({ amount: 3535, businessReference: 'order-rerun-1' });
			const first = json(await run(parameters));
			const second = json(await run(parameters));
			expect(second.reference).toBe(first.reference);
			const ledger = await sb.control.ledger();
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
				payout({ identifier: '={{ $json.identifier }}', amount: '={{ $json.amount }}' }),
				{ items, settings: CONTINUE },
			);
			const output = result.output('Money');
			expect(output).toHaveLength(150);
			output.forEach((item, index) => {
				expect(item.pairedItem).toEqual({ item: index });
				if (index % 25 === 7) expect(item.json).toMatchObject({ field: 'amount', error_code: null });
				else if (index % 10 === 3) expect(item.json).toMatchObject({ error_code: 'BENEFICIARY_NOT_FOUND', httpCode: 404 });
				else expect(item.json).toMatchObject({ success: true, reference: expect.any(String) });
			});
			const succeeded = output.filter((item) => item.json.success === true);
			const keys = new Set(succeeded.map((item) => item.json.idempotency_key));
			expect(keys.size).toBe(succeeded.length);
		});

		it('encrypts the PIN with the credential public key (RSA-OAEP SHA-256)', async () => {
			engine.credentials.set('rsa', 'moneyApi', credentialFromSandbox(sb.info, { rsaPublicKey: sb.info.rsaPublicKeyPem }));
			const item = json(await run(payout({ amount: 3636 }), { credentialId: 'rsa' }));
			expect(item.reference).toBeDefined();

			const { publicKey } = generateKeyPairSync('rsa', {
				modulusLength: 2048,
				publicKeyEncoding: { type: 'spki', format: 'pem' },
				privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
			});
			engine.credentials.set('wrong-rsa', 'moneyApi', credentialFromSandbox(sb.info, { rsaPublicKey: publicKey }));
			const refused = json(await run(payout({ amount: 3637 }), { credentialId: 'wrong-rsa', settings: CONTINUE }));
			expect(refused).toMatchObject({ httpCode: 400 });
		});
	});

	describe('transaction details', () => {
		it('gets details by reference and by unique id', async () => {
			const created = json(await run(payout({ amount: 1212 })));
			const ledger = await sb.control.ledger();
			const stored = ledger.payouts.find((entry) => entry.reference === created.reference);
			const byReference = json(await run({ resource: 'transaction', operation: 'get', transactionId: created.reference, options: FAST }));
			expect(byReference).toMatchObject({ reference: created.reference, status: { label: 'PENDING' } });
			expect(byReference.success).toBeUndefined();
			const byUniqueId = json(
				await run({ resource: 'transaction', operation: 'get', transactionId: stored?.unique_id, options: { ...FAST, simplify: true } }),
			);
			expect(byUniqueId).toMatchObject({ reference: created.reference, amount: -1212 });
		});

		it('maps transaction_not_found and merchant_not_linked', async () => {
			await expectFailure({ resource: 'transaction', operation: 'get', transactionId: 'missing-1', options: FAST }, 'transaction_not_found', 404);
			await sb.control.updateClient(sb.info.clientId, { linked: false });
			await expectFailure({ resource: 'transaction', operation: 'get', transactionId: 'missing-1', options: FAST }, 'merchant_not_linked', 403);
		});
	});

	describe('refusals before any request', () => {
		async function createRequests(): Promise<number> {
			const counters = await sb.control.counters();
			return (counters.requests.post_money_v1_charge ?? 0) + (counters.requests.post_money_v1_payout ?? 0);
		}

		it.each([
			['a text file', Buffer.from('just some text, not a receipt')],
			['a 2 MB + 1 byte PDF', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * 1024 * 1024 + 1 - 9, 0x20)])],
		])('refuses %s as payment reference document', async (_name, bytes) => {
			const before = await createRequests();
			const result = await run(
				payout({ additionalFields: { paymentReferenceDocumentField: 'data' } }),
				{ items: [{ json: {}, binary: { data: { data: bytes.toString('base64'), mimeType: 'application/pdf' } } }], settings: CONTINUE },
			);
			expect(json(result)).toMatchObject({ field: 'payment_reference.ref_document' });
			expect(await createRequests()).toBe(before);
		});

		it.each([
			[{ amount: 12.5 }, 'amount'],
			[{ amount: 0 }, 'amount'],
			[{ identifierType: 'phone', identifier: '90000001x', accountType: 'Client' }, 'beneficiary_identifier.identifier'],
			[{ identifierType: 'phone', identifier: '+22890000001', channel: 'platform', accountType: '={{ "" }}' }, 'beneficiary_account_type'],
			[{ additionalFields: { message: 'x'.repeat(256) } }, 'message'],
			[{ identifierType: 'bank_account' }, 'beneficiary_identifier.type'],
		])('refuses %j naming %s', async (overrides, field) => {
			const before = await createRequests();
			const item = json(await run(payout(overrides), { settings: CONTINUE }));
			expect(item.field).toBe(field);
			expect(await createRequests()).toBe(before);
		});

		it('stops the workflow with the field named when Continue On Fail is off', async () => {
			const result = await run(payout({ amount: -5 }));
			expect(result.error()?.message).toContain('Amount (amount)');
		});
	});

	describe('revoked token', () => {
		it('refreshes the token transparently', async () => {
			json(await run({ resource: 'account', operation: 'get', options: FAST }));
			const tokenBefore = engine.credentials.stored(CREDENTIAL_ID).accessToken;
			const requestsBefore = (await sb.control.counters()).tokenRequests;
			await sb.control.revokeTokens();
			const item = json(await run({ resource: 'account', operation: 'get', options: FAST }));
			expect(item.id).toBeDefined();
			expect((await sb.control.counters()).tokenRequests).toBe(requestsBefore + 1);
			expect(engine.credentials.stored(CREDENTIAL_ID).accessToken).not.toBe(tokenBefore);
		});
	});

	describe('tool mode', () => {
		function toolEngine(): Engine {
			const toolName = `${MONEY_NODE}Tool`;
			const base = engine.nodeTypes.getByNameAndVersion(MONEY_NODE, 1);
			const tool = Object.create(base) as INodeType;
			tool.description = { ...base.description, name: 'moneyTool' };
			const nodeTypes: INodeTypes = {
				getByName: (name: string) => (name === toolName ? tool : engine.nodeTypes.getByName(name)) as INodeType | IVersionedNodeType,
				getByNameAndVersion: (name: string, version?: number) =>
					name === toolName ? tool : NodeHelpers.getVersionedNodeType(engine.nodeTypes.getByName(name), version),
				getKnownTypes: () => ({}),
			};
			return { ...engine, nodeTypes };
		}

		async function runTool(parameters: Parameters): Promise<RunResult> {
			const tools = toolEngine();
			const node = { ...moneyNode({ parameters: parameters as never, settings: CONTINUE }), type: `${MONEY_NODE}Tool` };
			return remember(await runWorkflow(tools, buildWorkflow(tools, { nodes: [node] })));
		}

		it('refuses money movement unless switched on, and above the maximum', async () => {
			const before = (await sb.control.counters()).requests.post_money_v1_payout ?? 0;
			expect(String(json(await runTool(payout())).error)).toContain('turned off');
			expect(
				String(json(await runTool(payout({ allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 }))).error),
			).toContain('above the Maximum Amount');
			expect((await sb.control.counters()).requests.post_money_v1_payout ?? 0).toBe(before);

			const allowed = json(await runTool(payout({ amount: 900, allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 })));
			expect(allowed.reference).toBeDefined();
			expect(json(await runTool({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();
		});
	});

	afterAll(() => {
		expect(accessTokens.size).toBeGreaterThan(0);
		expect(findSecrets([{ nested: `x${PIN}x` }], secrets())).toHaveLength(1);
		expect(findSecrets(scanned, secrets())).toEqual([]);
	});
});
