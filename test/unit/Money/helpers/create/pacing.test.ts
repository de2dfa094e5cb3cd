import {
	classifyRefusal,
	DEFAULT_MAX_TOTAL_WAIT_MINUTES,
	durationText,
	minimumPacedDurationMs,
	pacingSettings,
	VelocityPacer,
} from '../../../../../nodes/Money/helpers/create/pacing';

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

describe('pacingSettings', () => {
	const payoutOptions = { onVelocityLimit: 'fail', maxTotalWaitMinutes: 5, checkBalanceFirst: true };

	it('reads the payout Options of a payout run', () => {
		expect(pacingSettings('payout', payoutOptions, {})).toMatchObject({ onVelocityLimit: 'fail', maxTotalWaitMs: 5 * 60_000, checkBalanceFirst: true });
	});

	// A charge panel offers none of them (descriptions/createFields.ts); parameters a workflow still holds change nothing.
	it('keeps the defaults for a charge run, whatever the parameters hold', () => {
		expect(pacingSettings('charge', payoutOptions, {})).toMatchObject({ onVelocityLimit: 'wait', maxTotalWaitMs: DEFAULT_MAX_TOTAL_WAIT_MINUTES * 60_000, checkBalanceFirst: false });
		expect(pacingSettings('charge', payoutOptions, {})).toEqual(pacingSettings('charge', {}, {}));
	});

	it('takes limit and window from the credential, the spec values when empty or invalid', () => {
		const velocity = (velocityLimit: unknown, velocityWindowSeconds: unknown) => pacingSettings('payout', {}, { velocityLimit, velocityWindowSeconds } as never).velocity;
		expect(velocity(undefined, undefined)).toEqual({ limit: 20, windowMs: 300_000 });
		expect(velocity('', 0)).toEqual({ limit: 20, windowMs: 300_000 });
		expect(velocity(5, 10)).toEqual({ limit: 5, windowMs: 10_000 });
		expect(velocity('7', '2.5')).toEqual({ limit: 7, windowMs: 2500 });
		expect(velocity(-3, 'x')).toEqual({ limit: 20, windowMs: 300_000 });
	});
});

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

	it('reads no breach from free text the spec does not give: the limit fields decide', () => {
		expect(classifyRefusal('LIMIT_EXCEEDED', { reason: 'Daily cap reached' })).toBe('other');
		expect(classifyRefusal('LIMIT_EXCEEDED', { limit: 'per-day-limit', daily_cap: 1000 })).toBe('daily_cap');
		expect(classifyRefusal('LIMIT_EXCEEDED', { limit: 'velocity' })).toBe('other');
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

	it('knows INSUFFICIENT_FUNDS and LIMIT_EXCEEDED, and nothing else', () => {
		expect(classifyRefusal('INSUFFICIENT_FUNDS', { available_balance: 10 })).toBe('insufficient_funds');
		expect(classifyRefusal('VELOCITY_LIMIT_EXCEEDED', undefined)).toBe('other');
		expect(classifyRefusal('VALIDATION_ERROR', { velocity_limit: 1 })).toBe('other');
		expect(classifyRefusal(null, undefined)).toBe('other');
	});
});

describe('velocity pacing', () => {
	it('lets `limit` sends through, then waits until the oldest leaves the window (plus a margin)', () => {
		const pacer = new VelocityPacer({ limit: 3, windowMs: 10_000 });
		for (const at of [0, 1000, 2000]) {
			expect(pacer.delayBeforeNext(at)).toBe(0);
			pacer.recordSend(at);
		}
		expect(pacer.delayBeforeNext(2500)).toBe(7525);
		expect(pacer.delayBeforeNext(10_025)).toBe(0);
		pacer.recordSend(10_100);
		expect(pacer.delayBeforeNext(10_200)).toBe(825);
	});

	it('paces a long run so no window ever holds more than the limit', () => {
		const pacer = new VelocityPacer({ limit: 5, windowMs: 2000 });
		const sends: number[] = [];
		let now = 0;
		for (let index = 0; index < 100; index++) {
			now += pacer.delayBeforeNext(now);
			sends.push(now);
			pacer.recordSend(now);
			now += 3;
		}
		for (const at of sends) expect(sends.filter((other) => other > at - 2000 && other <= at).length).toBeLessThanOrEqual(5);
		const minimum = minimumPacedDurationMs(100, { limit: 5, windowMs: 2000 });
		expect(minimum).toBe(19 * 2000);
		expect(minimum / (sends[99] - sends[0])).toBeGreaterThan(0.9);
	});

	it('adopts the limit and window a refusal reports and waits for its retry hint', () => {
		const pacer = new VelocityPacer({ limit: 20, windowMs: 300_000 });
		const wait = pacer.learnFromRefusal({ velocity_limit: 5, velocity_window_seconds: 10, velocity_used: 5, retry_after_seconds: 4 }, 1000);
		expect(wait).toBe(4025);
		expect(pacer.limit).toBe(5);
		expect(pacer.windowMs).toBe(10_000);
		expect(pacer.delayBeforeNext(2000)).toBe(3025);
		expect(pacer.delayBeforeNext(5100)).toBe(0);
	});

	it('without a hint, waits for its own oldest send, else one slot at the steady rate, at least 1 s', () => {
		const own = new VelocityPacer({ limit: 2, windowMs: 10_000 });
		own.recordSend(0);
		own.recordSend(100);
		expect(own.learnFromRefusal({ velocity_limit: 2 }, 500)).toBe(9525);

		const others = new VelocityPacer({ limit: 20, windowMs: 300_000 });
		expect(others.learnFromRefusal(undefined, 0)).toBe(15_000);
		const fast = new VelocityPacer({ limit: 100, windowMs: 10_000 });
		expect(fast.learnFromRefusal({}, 0)).toBe(1000);
	});

	it('gives the least duration of a paced run', () => {
		expect(minimumPacedDurationMs(0, { limit: 5, windowMs: 1000 })).toBe(0);
		expect(minimumPacedDurationMs(5, { limit: 5, windowMs: 1000 })).toBe(0);
		expect(minimumPacedDurationMs(6, { limit: 5, windowMs: 1000 })).toBe(1000);
		expect(minimumPacedDurationMs(100, { limit: 10, windowMs: 2000 })).toBe(18_000);
	});

	it('durations read as seconds, minutes, or hours and minutes', () => {
		expect([durationText(45_000), durationText(600_000), durationText(7_500_000)]).toEqual(['45 s', '10 min', '2 h 5 min']);
	});
});
