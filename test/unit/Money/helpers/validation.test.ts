import { readRecord } from '../../../../nodes/Money/helpers/reconcile/records';
import { checkDocument, type CreateInput, describeProblem, detectDocumentType, validateCreateInput } from '../../../../nodes/Money/helpers/validation';
import { expectEditorFinds } from '../../support/properties';

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
		[{ metadata: [{ key: 'n8n_agent_mandate', value: 'within mandate' }] }, 'metadata.n8n_agent_mandate', 'starts with n8n_agent_'],
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

	it('refuses a party identifier or Account Number given as a number that is not an exact integer: beyond 9007199254740991 two IDs read as one party or wallet', () => {
		const [one, other] = [Number('12345678901234567890'), Number('12345678901234567891')];
		expect(one).toBe(other);
		expect(problemOf('payout', { identifier: one })).toMatchObject({ parameter: 'beneficiaryIdentifier', field: 'beneficiary_identifier.identifier', rule: expect.stringContaining('not an exact integer') });
		expect(problemOf('payout', { identifier: 1.5 })).toMatchObject({ parameter: 'beneficiaryIdentifier' });
		expect(problemOf('charge', { accountNumber: other })).toMatchObject({ parameter: 'additionalFields.accountNumber', field: 'account_number' });
		expect(problemOf('charge', { paymentReferenceNumber: other })).toMatchObject({ field: 'payment_reference.ref_number' });
		const exact = validateCreateInput('payout', { ...valid, identifier: 22890000000, identifierType: 'phone', channel: 'psp-a-tg', accountNumber: 1002, paymentReferenceNumber: 7 });
		expect(exact).toMatchObject({ ok: true, body: { beneficiary_identifier: { identifier: '22890000000' }, account_number: '1002', payment_reference: { ref_number: '7' } } });
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

/**
 * The editor finds the field of an error by `context.parameter` (the error's "In parameter"):
 * test/unit/support/properties.ts parametersAtPath.
 */
describe('problems name the parameter so the editor finds it', () => {
	const cases: Array<[string, Partial<CreateInput>]> = [
		['a number', { amount: 'abc' }],
		['an options list', { currency: 'EUR' }],
		['an options list (channel)', { channel: 'bank' }],
		['a collection field (string)', { accountNumber: {} }],
		['a collection field (multi-line string)', { message: 'x'.repeat(256) }],
		['a collection field (payment reference number)', { paymentReferenceNumber: {} }],
		['a collection field (binary field name)', { document: Buffer.from('hello') }],
		['a fixed collection', { metadata: [{ key: '', value: 'x' }] }],
	];
	const partyCases: Array<[string, Partial<CreateInput>]> = [
		['an options list (identifier type)', { identifierType: 'email' }],
		['a string (identifier)', { identifier: '' }],
		['an options list (account type, required)', { identifierType: 'phone', identifier: '+22890000001' }],
		['an options list (account type, unknown)', { accountType: 'Boss' }],
	];
	it.each([...cases, ...partyCases])('on %s of a charge', (_kind, overrides) => {
		expectEditorFinds(problemOf('charge', overrides), 'charge', 'create');
	});
	it.each(cases)('on %s of a payout', (_kind, overrides) => {
		expectEditorFinds(problemOf('payout', overrides), 'payout', 'create');
	});
	// n8n's editor takes the node's first parameter of a name: each party has its own names, so on a
	// payout "In parameter" reads the beneficiary's label, never the payer's.
	it.each(partyCases)('on %s of a payout: the editor shows the payout label', (_kind, overrides) => {
		expectEditorFinds(problemOf('payout', overrides), 'payout', 'create');
	});

	it.each([
		['Reference Field', { reference: '', businessReference: '', amount: 1, currency: 'XOF', status: '' }],
		['Amount Field', { reference: 'a', businessReference: '', amount: 'abc', currency: 'XOF', status: '' }],
		['Currency Field', { reference: 'a', businessReference: '', amount: 1, currency: 'euro', status: '' }],
		['Status Field', { reference: 'a', businessReference: '', amount: 1, currency: 'XOF', status: 'LOST' }],
	])('on a Reconcile record field: %s', (_label, fields) => {
		const reading = readRecord(0, {}, fields, ['COMPLETED']);
		if (reading.ok) throw new Error('expected a problem');
		expectEditorFinds(reading.problem, 'charge', 'reconcile');
	});
});

describe('payment reference documents', () => {
	const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
	const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
	const PDF = Buffer.from('%PDF-1.7\n');

	it.each([
		['JPEG', JPEG, 'image/jpeg'],
		['PNG', PNG, 'image/png'],
		['PDF', PDF, 'application/pdf'],
	])('detects %s from its bytes', (_name, bytes, type) => {
		expect(detectDocumentType(bytes)).toBe(type);
		expect(checkDocument(bytes)).toEqual({ ok: true, type });
	});

	it.each([
		['text', Buffer.from('hello world')],
		['GIF', Buffer.from('GIF89a....')],
		['truncated PNG', PNG.subarray(0, 4)],
		['PDF-like', Buffer.from('%PDF')],
	])('refuses %s', (_name, bytes) => {
		expect(checkDocument(bytes)).toMatchObject({ ok: false, rule: expect.stringContaining('JPEG, PNG or PDF') });
	});

	it('refuses an empty document', () => {
		expect(checkDocument(Buffer.alloc(0))).toMatchObject({ ok: false, rule: 'must not be empty' });
	});

	it('accepts exactly 2 MB and refuses one byte more', () => {
		const limit = 2 * 1024 * 1024;
		expect(checkDocument(Buffer.concat([PDF, Buffer.alloc(limit - PDF.length)])).ok).toBe(true);
		expect(checkDocument(Buffer.concat([PDF, Buffer.alloc(limit - PDF.length + 1)]))).toMatchObject({
			ok: false,
			rule: expect.stringContaining('at most 2 MB'),
		});
	});
});
