import { adviceFor, classifyRefusal, describeStop, RunStops, type RunStop } from '../../../../../../nodes/Money/helpers/create/run/caps';

const SANDBOX_DETAILS = {
	min_amount: 100,
	max_amount: 5_000_000,
	daily_cap: 20_000,
	monthly_cap: 500_000,
	velocity_limit: 5,
	velocity_window_seconds: 10,
	daily_used: 19_500,
	monthly_used: 19_500,
	velocity_used: 2,
	currency: 'XOF',
};

describe('refusal classification', () => {
	it.each([
		['velocity_limit', 'velocity'],
		['daily_cap', 'daily_cap'],
		['monthly_cap', 'monthly_cap'],
		['max_amount', 'other'],
		['min_amount', 'other'],
	])('reads the named breach %s', (limit, kind) => {
		expect(classifyRefusal('LIMIT_EXCEEDED', { ...SANDBOX_DETAILS, limit })).toBe(kind);
	});

	it('reads whole words of a named breach: "day" inside another word is not a daily cap', () => {
		expect(classifyRefusal('LIMIT_EXCEEDED', { reason: 'per-transaction maximum exceeded today' })).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', { reason: 'Monday maintenance window', max_amount: 1000 })).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', { limit_name: 'holiday_max_amount' })).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', { reason: 'monthsEnd review' })).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', { reason: 'Daily cap reached' })).toBe('daily_cap');
		expect(classifyRefusal('LIMIT_EXCEEDED', { limit: 'per-day-limit' })).toBe('daily_cap');
		expect(classifyRefusal('LIMIT_EXCEEDED', { limit_type: 'MONTHLY_CAP' })).toBe('monthly_cap');
		expect(classifyRefusal('LIMIT_EXCEEDED', { breach: 'velocity' })).toBe('velocity');
	});

	it('infers the breach from the one family of limit fields present', () => {
		expect(classifyRefusal('LIMIT_EXCEEDED', { velocity_limit: 20 })).toBe('velocity');
		expect(classifyRefusal('LIMIT_EXCEEDED', { daily_cap: 1000, daily_used: 900 })).toBe('daily_cap');
		expect(classifyRefusal('LIMIT_EXCEEDED', { monthly_cap: 1000 })).toBe('monthly_cap');
		expect(classifyRefusal('LIMIT_EXCEEDED', { max_amount: 1000 })).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', { ...SANDBOX_DETAILS, velocity_used: 5 })).toBe('velocity');
		expect(classifyRefusal('LIMIT_EXCEEDED', SANDBOX_DETAILS)).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', undefined)).toBe('other');
	});

	it('knows INSUFFICIENT_FUNDS and additive velocity codes, and nothing else', () => {
		expect(classifyRefusal('INSUFFICIENT_FUNDS', { available_balance: 10 })).toBe('insufficient_funds');
		expect(classifyRefusal('VELOCITY_LIMIT_EXCEEDED', undefined)).toBe('velocity');
		expect(classifyRefusal('VALIDATION_ERROR', { velocity_limit: 1 })).toBe('other');
		expect(classifyRefusal(null, undefined)).toBe('other');
	});
});

const stop = (overrides: Partial<RunStop>): RunStop => ({
	kind: 'daily_cap',
	itemIndex: 11,
	errorCode: 'LIMIT_EXCEEDED',
	httpCode: 403,
	currency: 'XOF',
	details: SANDBOX_DETAILS,
	...overrides,
});

describe('run stops', () => {
	it('are kept per resource, currency and wallet', () => {
		const stops = new RunStops();
		stops.record({ resource: 'payout', currency: 'XOF' }, stop({}));
		expect(stops.find({ resource: 'payout', currency: 'XOF' })?.itemIndex).toBe(11);
		expect(stops.find({ resource: 'payout', currency: 'XAF' })).toBeUndefined();
		expect(stops.find({ resource: 'payout', currency: 'XOF', accountNumber: 'WAL-2' })).toBeUndefined();
		expect(stops.find({ resource: 'charge', currency: 'XOF' })).toBeUndefined();
		stops.record({ resource: 'payout', currency: 'XOF' }, stop({ itemIndex: 20 }));
		expect(stops.find({ resource: 'payout', currency: 'XOF' })?.itemIndex).toBe(11);
	});

	it('name the cap, or the shortfall of each payout', () => {
		expect(describeStop(stop({}))).toBe('the daily payout cap of 20000 XOF was reached at item 12 (19500 XOF already used)');
		expect(describeStop(stop({ kind: 'monthly_cap', details: { monthly_cap: 9 } }))).toBe('the monthly payout cap of 9 XOF was reached at item 12');
		const funds = stop({ kind: 'insufficient_funds', itemIndex: 4, details: { available_balance: 700 } });
		expect(describeStop(funds, 1000)).toBe('the wallet had 700 XOF available at item 5; this payout of 1000 XOF is short by 300 XOF');
		expect(describeStop(funds, 500)).toBe('the wallet had 700 XOF available at item 5');
		expect(describeStop(stop({ kind: 'insufficient_funds', details: {} }))).toBe('the wallet balance ran out at item 12');
	});

	it('say what to do', () => {
		expect(adviceFor(stop({}))).toContain('next UTC day');
		expect(adviceFor(stop({ kind: 'monthly_cap' }))).toContain('next UTC month');
		expect(adviceFor(stop({ kind: 'insufficient_funds' }))).toContain('Top up');
	});
});
