import { readRecord, type RecordFields } from '../../../nodes/Money/helpers/reconcile/records';
import { CHARGE_STATUSES } from '../../../nodes/shared/constants';

const fields = (overrides: Partial<RecordFields> = {}): RecordFields => ({
	reference: '',
	businessReference: 'ord-1',
	amount: 5000,
	currency: 'xof',
	status: 'completed',
	...overrides,
});

describe('readRecord', () => {
	it('reads references, a whole amount (number or digits), an upper-cased currency and status', () => {
		const reading = readRecord(3, { a: 1 }, fields({ reference: ' chg_1 ', amount: ' 5000 ' }), CHARGE_STATUSES);
		expect(reading).toEqual({
			ok: true,
			record: { itemIndex: 3, reference: 'chg_1', businessReference: 'ord-1', amount: 5000, currency: 'XOF', status: 'COMPLETED', json: { a: 1 } },
		});
		expect(readRecord(0, {}, fields({ businessReference: 1045 }), CHARGE_STATUSES)).toMatchObject({ record: { businessReference: '1045' } });
	});

	it('leaves the status out when the record gives none', () => {
		expect(readRecord(0, {}, fields({ status: '' }), CHARGE_STATUSES)).toMatchObject({ ok: true, record: { status: undefined } });
	});

	it.each([
		[{ reference: '', businessReference: '  ' }, 'Record Reference (reference) or Record Business Reference must give a value to match on (input item 2)'],
		[{ amount: 12.5 }, 'Expected Amount'],
		[{ amount: 0 }, 'Expected Amount'],
		[{ amount: '1e3' }, 'Expected Amount'],
		[{ amount: undefined }, 'Expected Amount'],
		[{ currency: '' }, 'Expected Currency (currency) must be a three-letter currency code'],
		[{ currency: '=cmd' }, 'Expected Currency'],
		[{ status: 'REVERSED' }, 'Expected Status (status) must be empty or one of PENDING, COMPLETED, FAILED, CANCELLED'],
	])('refuses %j', (overrides, message) => {
		const reading = readRecord(2, {}, fields(overrides), CHARGE_STATUSES);
		expect(reading.ok).toBe(false);
		if (reading.ok) return;
		expect(`${reading.problem.parameter} (${reading.problem.field}) ${reading.problem.rule}`).toContain(message);
		expect(reading.problem.rule).toContain('(input item 2)');
	});
});
