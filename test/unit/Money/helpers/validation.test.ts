import { type CreateInput, describeProblem, toIsoTimestamp, validateCreateInput } from '../../../../nodes/Money/helpers/validation';

const valid: CreateInput = {
	amount: 5000,
	currency: 'XOF',
	identifier: 'GM-1001',
	identifierType: 'gm_account',
	channel: 'platform',
};

function problemOf(resource: 'charge' | 'payout', overrides: Partial<CreateInput>) {
	const result = validateCreateInput(resource, { ...valid, ...overrides });
	if (result.ok) throw new Error('expected a problem');
	return result.problem;
}

describe('create validation', () => {
	it('builds the charge body without multiplying the amount', () => {
		const result = validateCreateInput('charge', {
			...valid,
			amount: '5000',
			accountType: 'Client',
			accountNumber: ' WAL-1 ',
			message: 'hello',
			metadata: [{ key: 'order', value: '1' }],
			paymentReferenceNumber: 'INV-1',
		});
		expect(result).toEqual({
			ok: true,
			body: {
				amount: 5000,
				currency: 'XOF',
				payer_identifier: { identifier: 'GM-1001', type: 'gm_account' },
				channel: 'platform',
				payer_account_type: 'Client',
				account_number: 'WAL-1',
				message: 'hello',
				metadata: { order: '1' },
				payment_reference: { ref_number: 'INV-1' },
			},
		});
	});

	it('uses the beneficiary fields on payouts', () => {
		const result = validateCreateInput('payout', { ...valid, accountType: 'Driver' });
		expect(result.ok && result.body).toMatchObject({
			beneficiary_identifier: { identifier: 'GM-1001', type: 'gm_account' },
			beneficiary_account_type: 'Driver',
		});
	});

	it.each([
		[{ amount: 0 }, 'amount', 'greater than 0'],
		[{ amount: -1 }, 'amount', 'greater than 0'],
		[{ amount: 12.5 }, 'amount', 'whole number'],
		[{ amount: '12.5' }, 'amount', 'whole number'],
		[{ amount: Number.MAX_SAFE_INTEGER + 2 }, 'amount', 'whole number'],
		[{ amount: undefined }, 'amount', 'nothing was given'],
		[{ currency: 'EUR' }, 'currency', '"XOF", "XAF"'],
		[{ identifierType: 'email' }, 'payer_identifier.type', '"gm_account", "phone"'],
		[{ identifier: '  ' }, 'payer_identifier.identifier', 'is required'],
		[{ identifierType: 'phone', identifier: '12ab', accountType: 'Client' }, 'payer_identifier.identifier', 'international format'],
		[{ channel: 'bank' }, 'channel', '"platform", "psp-a-tg", "psp-b-tg"'],
		[{ identifierType: 'phone', identifier: '+22890000001' }, 'payer_account_type', 'required when the identifier type is phone'],
		[{ accountType: 'Boss' }, 'payer_account_type', '"Client", "Driver", "Merchant"'],
		[{ message: 'x'.repeat(256) }, 'message', 'at most 255 characters'],
		[{ metadata: [{ key: '', value: 'x' }] }, 'metadata[0].key', 'non-empty key'],
		[{ metadata: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] }, 'metadata.a', 'more than once'],
		[{ document: Buffer.from('hello') }, 'payment_reference.ref_document', 'JPEG, PNG or PDF'],
	])('refuses %j on %s', (overrides, field, rule) => {
		const problem = problemOf('charge', overrides as Partial<CreateInput>);
		expect(problem.field).toBe(field);
		expect(problem.rule).toContain(rule);
		expect(describeProblem(problem)).toContain(`(${field})`);
	});

	it('counts message length in characters, not bytes', () => {
		expect(validateCreateInput('charge', { ...valid, message: 'é'.repeat(255) }).ok).toBe(true);
		expect(validateCreateInput('charge', { ...valid, message: '😀'.repeat(255) }).ok).toBe(true);
	});

	it('refuses bank_account payouts as reserved', () => {
		expect(problemOf('payout', { identifierType: 'bank_account' }).rule).toContain('reserved');
	});

	it('accepts a phone on a mobile-money channel without an account type', () => {
		expect(validateCreateInput('payout', { ...valid, identifierType: 'phone', identifier: '+22890000001', channel: 'psp-a-tg' }).ok).toBe(true);
	});

	it('names the parameter as the UI shows it', () => {
		expect(describeProblem(problemOf('payout', { identifier: '' }))).toBe('Beneficiary Identifier (beneficiary_identifier.identifier) is required');
	});

	it('sends a valid document as base64 with its reference number', () => {
		const pdf = Buffer.from('%PDF-1.4 tiny');
		const result = validateCreateInput('charge', { ...valid, document: pdf });
		expect(result.ok && result.body.payment_reference).toEqual({ ref_document: pdf.toString('base64') });
	});
});

describe('date filters', () => {
	it('reads picker wall time in the workflow time zone', () => {
		expect(toIsoTimestamp('2024-03-01T10:00:00', 'Africa/Lome')).toBe('2024-03-01T10:00:00.000Z');
		expect(toIsoTimestamp('2024-07-01T10:00:00', 'Europe/Paris')).toBe('2024-07-01T08:00:00.000Z');
		expect(toIsoTimestamp('2024-01-01T10:00:00', 'Europe/Paris')).toBe('2024-01-01T09:00:00.000Z');
		expect(toIsoTimestamp('2024-01-01', 'UTC')).toBe('2024-01-01T00:00:00.000Z');
	});

	it('keeps an explicit offset and accepts dates and DateTime-like objects', () => {
		expect(toIsoTimestamp('2024-01-01T10:00:00+02:00', 'UTC')).toBe('2024-01-01T08:00:00.000Z');
		expect(toIsoTimestamp(new Date('2024-01-01T00:00:00Z'), 'UTC')).toBe('2024-01-01T00:00:00.000Z');
		expect(toIsoTimestamp({ toISO: () => '2024-01-01T00:00:00.000Z' }, 'UTC')).toBe('2024-01-01T00:00:00.000Z');
	});

	it('refuses what is not a date', () => {
		expect(toIsoTimestamp('yesterday', 'UTC')).toBeUndefined();
		expect(toIsoTimestamp(42, 'UTC')).toBeUndefined();
	});
});
