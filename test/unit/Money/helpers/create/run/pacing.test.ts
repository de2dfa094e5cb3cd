import {
	minimumPacedDurationMs,
	VelocityPacer,
	velocitySettingsFrom,
} from '../../../../../../nodes/Money/helpers/create/run/pacing';

describe('velocity pacing', () => {
	it('takes limit and window from the credential, the spec values when empty or invalid', () => {
		expect(velocitySettingsFrom(undefined, undefined)).toEqual({ limit: 20, windowMs: 300_000 });
		expect(velocitySettingsFrom('', 0)).toEqual({ limit: 20, windowMs: 300_000 });
		expect(velocitySettingsFrom(5, 10)).toEqual({ limit: 5, windowMs: 10_000 });
		expect(velocitySettingsFrom('7', '2.5')).toEqual({ limit: 7, windowMs: 2500 });
		expect(velocitySettingsFrom(-3, 'x')).toEqual({ limit: 20, windowMs: 300_000 });
	});

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
});
