import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { INELIGIBLE_IDENTIFIERS, SECONDARY_CLIENT_ID, UNKNOWN_IDENTIFIERS, type Sandbox } from '../../../sandbox';
import { ApiTestClient, chargeBody, encryptPin, pendingChargeEnvelope, rawRequest, startTestSandbox, useTestSandbox } from '../helpers';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64)]);
const PDF = Buffer.from('%PDF-1.7\n%sandbox\n');

describe('charges (spec 2.1, 2.3, 4, 5.5, 5.6, 8)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started));

	const create = (overrides: Record<string, unknown> = {}, idempotencyKey?: string) =>
		api.call('POST', '/money/v1/charge', { body: chargeBody(overrides), idempotencyKey });

	const expectValidationError = async (overrides: Record<string, unknown>, field: string) => {
		const response = await create(overrides);
		expect(response.status).toBe(400);
		expect(response.json).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR', message: expect.any(String) });
		expect(Object.keys(response.json.details)).toContain(field);
	};

	it('a mobile-money charge answers 201 { success, reference } without redirect_link and starts PENDING', async () => {
		const response = await create();
		expect(response.status).toBe(201);
		expect(response.json).toEqual({ success: true, reference: expect.stringMatching(/^chg_/) });
		const read = await api.call('GET', `/money/v1/charge/${response.json.reference}`);
		expect(read.status).toBe(200);
		expect(read.json.success).toBe(true);
		expect(read.json.data).toMatchObject(pendingChargeEnvelope(sandbox, response.json.reference));
		expect(new Date(read.json.data.created_at).toISOString()).toBe(read.json.data.created_at);
	});

	it('a platform charge returns a redirect_link that the payer can approve', async () => {
		const response = await create({ channel: 'platform', payer_identifier: { identifier: '+22890000001', type: 'phone' }, payer_account_type: 'Client' });
		expect(response.status).toBe(201);
		expect(response.json.redirect_link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_pay\//);
		const link = new URL(response.json.redirect_link);
		const page = await rawRequest({ origin: link.origin, method: 'GET', path: link.pathname });
		expect(page.status).toBe(200);
		const approve = await rawRequest({ origin: link.origin, method: 'POST', path: `${link.pathname}/approve` });
		expect(approve.json.data.status.label).toBe('COMPLETED');
	});

	it.each([
		[{ amount: 0 }, 'amount'],
		[{ amount: -5 }, 'amount'],
		[{ amount: 10.5 }, 'amount'],
		[{ amount: '5000' }, 'amount'],
		[{ amount: undefined }, 'amount'],
		[{ currency: 'EUR' }, 'currency'],
		[{ currency: undefined }, 'currency'],
		[{ payer_identifier: undefined }, 'payer_identifier'],
		[{ payer_identifier: { identifier: 'GM-1001', type: 'email' } }, 'payer_identifier.type'],
		[{ payer_identifier: { identifier: '', type: 'gm_account' } }, 'payer_identifier.identifier'],
		[{ payer_identifier: { identifier: 'not-a-phone', type: 'phone' } }, 'payer_identifier.identifier'],
		[{ channel: undefined }, 'channel'],
		[{ pin: undefined }, 'pin'],
		[{ payer_account_type: 'Robot' }, 'payer_account_type'],
		[{ message: 'x'.repeat(256) }, 'message'],
		[{ message: 42 }, 'message'],
		[{ metadata: ['not', 'an', 'object'] }, 'metadata'],
		[{ account_number: 17 }, 'account_number'],
		[{ payment_reference: 'REF-1' }, 'payment_reference'],
		[{ payment_reference: {} }, 'payment_reference'],
		[{ payment_reference: { ref_number: 'R1', ref_document: 'not base64!' } }, 'payment_reference.ref_document'],
		[{ payment_reference: { ref_number: 'R1', ref_document: Buffer.from('plain text, not a document').toString('base64') } }, 'payment_reference.ref_document'],
	])('%j fails with VALIDATION_ERROR naming %s', async (overrides, field) => {
		await expectValidationError(overrides, field);
	});

	it('payer_account_type is required for a phone payer on platform only', async () => {
		const phone = { payer_identifier: { identifier: '+22890000002', type: 'phone' } };
		await expectValidationError({ ...phone, channel: 'platform' }, 'payer_account_type');
		expect((await create({ ...phone, channel: 'psp-b-tg' })).status).toBe(201);
		expect((await create({ ...phone, channel: 'platform', payer_account_type: 'Driver' })).status).toBe(201);
	});

	it('the phone name is resolved on mobile money only when the account type is given', async () => {
		const withoutType = await create({ payer_identifier: { identifier: '+22890000002', type: 'phone' } });
		const withType = await create({ payer_identifier: { identifier: '+22890000002', type: 'phone' }, payer_account_type: 'Driver' });
		const read = async (reference: string) => (await api.call('GET', `/money/v1/charge/${reference}`)).json.data.counterpart_account.name;
		expect(await read(withoutType.json.reference)).toBeNull();
		expect(await read(withType.json.reference)).toBe('Yao Dossou');
	});

	it('rejects a body that is not JSON with VALIDATION_ERROR', async () => {
		const response = await api.call('POST', '/money/v1/charge', { rawBody: '{"amount":' });
		expect(response.status).toBe(400);
		expect(response.json.error_code).toBe('VALIDATION_ERROR');
	});

	it('an unknown channel gives CHANNEL_NOT_SUPPORTED', async () => {
		const response = await create({ channel: 'psp-z-gh' });
		expect(response.status).toBe(400);
		expect(response.json).toMatchObject({ success: false, error_code: 'CHANNEL_NOT_SUPPORTED' });
	});

	it('message: 255 characters are accepted and shared in shared_note', async () => {
		const message = 'é'.repeat(255);
		const response = await create({ message });
		expect(response.status).toBe(201);
		const read = await api.call('GET', `/money/v1/charge/${response.json.reference}`);
		expect(read.json.data.shared_note).toBe(message);
	});

	it.each([
		['JPEG', JPEG, 'image/jpeg'],
		['PNG', PNG, 'image/png'],
		['PDF', PDF, 'application/pdf'],
	])('payment_reference accepts a %s document, typed from its bytes', async (_name, bytes, contentType) => {
		const response = await create({ payment_reference: { ref_number: 'INV-1', ref_document: bytes.toString('base64') } });
		expect(response.status).toBe(201);
		const read = await api.call('GET', `/money/v1/charge/${response.json.reference}`);
		expect(read.json.data.payment_references).toEqual([{ ref_number: 'INV-1', document: { content_type: contentType, size: bytes.length } }]);
	});

	it('payment_reference rejects a document over 2 MB decoded and accepts exactly 2 MB', async () => {
		const exact = Buffer.concat([PDF, Buffer.alloc(2 * 1024 * 1024 - PDF.length)]);
		expect((await create({ payment_reference: { ref_document: exact.toString('base64') } })).status).toBe(201);
		const tooBig = Buffer.concat([exact, Buffer.alloc(1)]);
		await expectValidationError({ payment_reference: { ref_document: tooBig.toString('base64') } }, 'payment_reference.ref_document');
	});

	it('a body over the size limit answers 413 before anything else', async () => {
		const small = await startTestSandbox({ config: { maxBodyBytes: 1024 } });
		try {
			const response = await new ApiTestClient(small).call('POST', '/money/v1/charge', { body: chargeBody({ message: 'x'.repeat(2000) }) });
			expect(response.status).toBe(413);
			expect(response.json).toMatchObject({ success: false, error_code: 'PAYLOAD_TOO_LARGE' });
		} finally {
			await small.close();
		}
	});

	it('account_number must belong to the merchant (404 ACCOUNT_NOT_FOUND) and match the currency', async () => {
		const foreign = await create({ account_number: 'WAL-XOF-200001' });
		expect(foreign.status).toBe(404);
		expect(foreign.json.error_code).toBe('ACCOUNT_NOT_FOUND');
		await expectValidationError({ account_number: 'WAL-XAF-100001' }, 'currency');
		expect((await create({ account_number: sandbox.info.merchantAccountNumber })).status).toBe(201);
	});

	it('an XAF charge without account_number goes to the merchant XAF wallet', async () => {
		const response = await create({ currency: 'XAF' });
		const read = await api.call('GET', `/money/v1/charge/${response.json.reference}`);
		expect(read.json.data.account.identifier).toBe('WAL-XAF-100001');
	});

	it('accepts the PIN encrypted with RSA-OAEP-SHA-256 and the client public key', async () => {
		const response = await create({ pin: encryptPin(sandbox.info.rsaPublicKeyPem, sandbox.info.pin) });
		expect(response.status).toBe(201);
	});

	it('a PIN that looks encrypted but cannot be decrypted gives 400', async () => {
		const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
		const response = await create({ pin: encryptPin(publicKey, sandbox.info.pin) });
		expect(response.status).toBe(400);
		expect(response.json.error_code).toBe('VALIDATION_ERROR');
		expect(response.json.details).toHaveProperty('pin');
	});

	it('a wrong PIN, plain or encrypted, gives 403 INVALID_PIN', async () => {
		expect((await create({ pin: '9999' })).json).toMatchObject({ error_code: 'INVALID_PIN' });
		const encrypted = await create({ pin: encryptPin(sandbox.info.rsaPublicKeyPem, '0000') });
		expect(encrypted.status).toBe(403);
		expect(encrypted.json.error_code).toBe('INVALID_PIN');
	});

	it.each([
		[{ identifier: UNKNOWN_IDENTIFIERS.gm_account, type: 'gm_account' }, {}],
		[{ identifier: UNKNOWN_IDENTIFIERS.phone, type: 'phone' }, {}],
		[{ identifier: '+22890000002', type: 'phone' }, { channel: 'platform', payer_account_type: 'Merchant' }],
	])('an unknown payer %j gives 404 PAYER_NOT_FOUND', async (payer, extra) => {
		const response = await create({ payer_identifier: payer, ...extra });
		expect(response.status).toBe(404);
		expect(response.json.error_code).toBe('PAYER_NOT_FOUND');
	});

	it.each([
		[{ identifier: INELIGIBLE_IDENTIFIERS.gm_account, type: 'gm_account' }],
		[{ identifier: INELIGIBLE_IDENTIFIERS.phone, type: 'phone' }],
	])('an ineligible payer %j gives 400 PAYER_NOT_ELIGIBLE', async (payer) => {
		const response = await create({ payer_identifier: payer });
		expect(response.status).toBe(400);
		expect(response.json.error_code).toBe('PAYER_NOT_ELIGIBLE');
	});

	it('every seeded payer in the ready info can be charged', async () => {
		for (const payer of sandbox.info.payers) {
			const response = await create({ channel: 'platform', payer_identifier: { identifier: payer.identifier, type: payer.type }, payer_account_type: payer.account_type });
			expect(response.status).toBe(201);
		}
	});

	describe('idempotency (5.6)', () => {
		it('replays the original response for the same key and body, creating nothing new', async () => {
			const key = randomUUID();
			const first = await create({ amount: 7100 }, key);
			const again = await create({ amount: 7100 }, key);
			expect(first.status).toBe(201);
			expect(again.status).toBe(201);
			expect(again.text).toBe(first.text);
			expect(again.headers['idempotent-replayed']).toBe('true');
			const ledger = await sandbox.control.ledger();
			expect(ledger.charges.filter((charge) => charge.idempotency_key === key)).toHaveLength(1);
			expect((await sandbox.control.counters()).createsByIdempotencyKey[key]).toBe(1);
		});

		it('compares a repeated body byte for byte by default, as a strict API does: another field order or the PIN encrypted again conflicts', async () => {
			expect((await sandbox.control.health()).idempotencyFingerprint).toBe('raw');
			const body = chargeBody({ amount: 7200, pin: encryptPin(sandbox.info.rsaPublicKeyPem, '1234') });
			const key = randomUUID();
			const first = await api.call('POST', '/money/v1/charge', { rawBody: JSON.stringify(body), idempotencyKey: key });
			expect(first.status).toBe(201);
			const sameBytes = await api.call('POST', '/money/v1/charge', { rawBody: JSON.stringify(body), idempotencyKey: key });
			expect(sameBytes.json.reference).toBe(first.json.reference);
			const reordered = Object.fromEntries(Object.entries(body).reverse());
			const conflict = await api.call('POST', '/money/v1/charge', { rawBody: JSON.stringify(reordered), idempotencyKey: key });
			expect(conflict.status).toBe(409);
			expect(conflict.json).toMatchObject({ error_code: 'IDEMPOTENCY_CONFLICT', details: { comparison: 'raw', same_fields: true } });
			const reencrypted = { ...body, pin: encryptPin(sandbox.info.rsaPublicKeyPem, '1234') };
			const again = await api.call('POST', '/money/v1/charge', { rawBody: JSON.stringify(reencrypted), idempotencyKey: key });
			expect(again.status).toBe(409);
		});

		it('treats the same fields in another order, or the PIN encrypted again, as the same body when told to compare fields', async () => {
			await sandbox.control.setIdempotencyFingerprint('semantic');
			try {
				const key = randomUUID();
				const first = await api.call('POST', '/money/v1/charge', { rawBody: JSON.stringify(chargeBody({ amount: 7200, pin: encryptPin(sandbox.info.rsaPublicKeyPem, '1234') })), idempotencyKey: key });
				const reordered = Object.fromEntries(Object.entries(chargeBody({ amount: 7200, pin: encryptPin(sandbox.info.rsaPublicKeyPem, '1234') })).reverse());
				const again = await api.call('POST', '/money/v1/charge', { body: reordered, idempotencyKey: key });
				expect(again.status).toBe(201);
				expect(again.json.reference).toBe(first.json.reference);
				const conflict = await create({ amount: 7201 }, key);
				expect(conflict.json).toMatchObject({ error_code: 'IDEMPOTENCY_CONFLICT', details: { comparison: 'semantic', same_fields: false } });
			} finally {
				await sandbox.control.setIdempotencyFingerprint('raw');
			}
		});

		it('answers 409 IDEMPOTENCY_CONFLICT for the same key with a different body', async () => {
			const key = randomUUID();
			await create({ amount: 7300 }, key);
			const conflict = await create({ amount: 7301 }, key);
			expect(conflict.status).toBe(409);
			expect(conflict.json).toMatchObject({ success: false, error_code: 'IDEMPOTENCY_CONFLICT' });
		});

		it('scopes keys per client', async () => {
			const key = randomUUID();
			const other = new ApiTestClient(sandbox, { clientId: SECONDARY_CLIENT_ID, clientSecret: 'sandbox-only-client-secret-2', apiKey: 'sandbox-only-api-key-2', hmacSecret: 'sandbox-only-hmac-secret-2' });
			const mine = await create({ amount: 7400 }, key);
			const theirs = await other.call('POST', '/money/v1/charge', { body: chargeBody({ amount: 7400, pin: '5678' }), idempotencyKey: key });
			expect(theirs.status).toBe(201);
			expect(theirs.json.reference).not.toBe(mine.json.reference);
		});

		it('rejects an empty idempotency-key with VALIDATION_ERROR', async () => {
			const response = await api.call('POST', '/money/v1/charge', { body: chargeBody(), headers: { 'idempotency-key': '' } });
			expect(response.status).toBe(400);
			expect(response.json.details).toHaveProperty(['idempotency-key']);
		});

		it('does not record rejected creates, so a corrected request with the same key succeeds', async () => {
			const key = randomUUID();
			expect((await create({ amount: 0 }, key)).status).toBe(400);
			expect((await create({ amount: 100 }, key)).status).toBe(201);
		});
	});

	describe('reads and state', () => {
		it('completion credits the wallet and shows status 1 COMPLETED', async () => {
			const before = (await sandbox.control.ledger()).balance.value;
			const created = await create({ amount: 12_345 });
			expect((await sandbox.control.ledger()).balance.value).toBe(before);
			await sandbox.control.setStatus(created.json.reference, 'COMPLETED');
			expect((await sandbox.control.ledger()).balance.value).toBe(before + 12_345);
			const read = await api.call('GET', `/money/v1/charge/${created.json.reference}`);
			expect(read.json.data.status).toEqual({ code: 1, label: 'COMPLETED' });
			expect(read.json.data.balance_after.value).toBe(before + 12_345);
		});

		it.each([
			['FAILED', 2],
			['CANCELLED', 3],
		] as const)('%s shows status code %i and credits nothing', async (status, code) => {
			const before = (await sandbox.control.ledger()).balance.value;
			const created = await create();
			await sandbox.control.setStatus(created.json.reference, status);
			expect((await api.call('GET', `/money/v1/charge/${created.json.reference}`)).json.data.status).toEqual({ code, label: status });
			expect((await sandbox.control.ledger()).balance.value).toBe(before);
		});

		it('a charge cannot be REVERSED and a final status never changes', async () => {
			const created = await create();
			await sandbox.control.setStatus(created.json.reference, 'COMPLETED');
			await expect(sandbox.control.setStatus(created.json.reference, 'REVERSED')).rejects.toMatchObject({ code: 'invalid_transition' });
			await expect(sandbox.control.setStatus(created.json.reference, 'FAILED')).rejects.toMatchObject({ code: 'invalid_transition' });
		});

		it('404 CHARGE_NOT_FOUND for an unknown reference, a payout reference, or another client charge', async () => {
			const unknown = await api.call('GET', '/money/v1/charge/chg_unknown');
			expect(unknown.status).toBe(404);
			expect(unknown.json).toMatchObject({ success: false, error_code: 'CHARGE_NOT_FOUND' });
			const payout = await api.call('POST', '/money/v1/payout', { body: { amount: 1000, currency: 'XOF', beneficiary_identifier: { identifier: 'GM-1002', type: 'gm_account' }, channel: 'platform', pin: '1234' } });
			expect((await api.call('GET', `/money/v1/charge/${payout.json.reference}`)).json.error_code).toBe('CHARGE_NOT_FOUND');
			const other = new ApiTestClient(sandbox, { clientId: SECONDARY_CLIENT_ID, clientSecret: 'sandbox-only-client-secret-2', apiKey: 'sandbox-only-api-key-2', hmacSecret: 'sandbox-only-hmac-secret-2' });
			const theirs = await other.call('POST', '/money/v1/charge', { body: chargeBody({ pin: '5678' }) });
			expect((await api.call('GET', `/money/v1/charge/${theirs.json.reference}`)).json.error_code).toBe('CHARGE_NOT_FOUND');
		});
	});
});
