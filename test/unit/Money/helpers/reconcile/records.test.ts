import { readRecord, type RecordFields, valueAt } from '../../../../../nodes/Money/helpers/reconcile/records';
import { CHARGE_STATUSES } from '../../../../../nodes/api/values';
import { describeProblem } from '../../../../../nodes/Money/helpers/validation';

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
		[{ reference: '', businessReference: '  ' }, 'Reference Field (reference) and Business Reference Field give no value to match on (input item 2)'],
		[{ amount: 12.5 }, 'Amount Field'],
		[{ amount: 0 }, 'Amount Field'],
		[{ amount: '1e3' }, 'Amount Field'],
		[{ amount: undefined }, 'Amount Field'],
		[{ currency: '' }, 'Currency Field (currency) must be a three-letter currency code'],
		[{ currency: '=cmd' }, 'Currency Field'],
		[{ status: 'REVERSED' }, 'Status Field (status) must be empty or one of PENDING, COMPLETED, FAILED, CANCELLED'],
	])('refuses %j', (overrides, message) => {
		const reading = readRecord(2, {}, fields(overrides), CHARGE_STATUSES);
		expect(reading.ok).toBe(false);
		if (reading.ok) return;
		expect(describeProblem(reading.problem)).toContain(message);
		expect(reading.problem.rule).toContain('(input item 2)');
	});
});

describe('valueAt', () => {
	it('reads a key as written, else a dot path', () => {
		expect(valueAt({ 'order.id': 1, order: { id: 2 } }, 'order.id')).toBe(1);
		expect(valueAt({ order: { id: 2 } }, 'order.id')).toBe(2);
		expect(valueAt({ order: null }, 'order.id')).toBeUndefined();
		expect(valueAt({}, 'toString')).toBeUndefined();
		expect(valueAt({ a: {} }, 'a.constructor')).toBeUndefined();
	});
});
