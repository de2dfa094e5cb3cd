import { createRunSettings, pacedRunEstimate } from '../../../../../../nodes/Money/helpers/create/run/createRun';
import { durationText, progressLine, shouldReport } from '../../../../../../nodes/Money/helpers/create/run/progress';

describe('run progress', () => {
	it('reports every 10 items and at the end, on runs of 10 or more', () => {
		const reported: number[] = [];
		let last = 0;
		for (const done of [1, 2, 9, 11, 19, 20, 25]) {
			if (shouldReport(done, last, 25)) reported.push((last = done));
		}
		expect(reported).toEqual([11, 20, 25]);
		expect(shouldReport(5, 0, 5)).toBe(false);
		expect(shouldReport(10, 10, 30)).toBe(false);
	});

	it('says what was sent, failed, skipped and waited', () => {
		expect(progressLine('payout', 10, 60, { created: 9, failed: 1, notAttempted: 0, waitedMs: 0 })).toBe(
			'Money payout run: 10 of 60 items done (9 sent, 1 failed)',
		);
		expect(progressLine('payout', 60, 60, { created: 40, failed: 1, notAttempted: 19, waitedMs: 61_400 })).toBe(
			'Money payout run: 60 of 60 items done (40 sent, 1 failed, 19 not attempted); waited 61 s for the velocity limit',
		);
	});
});

describe('the estimate a paced payout run announces before its first send', () => {
	it('60 payouts at the API default of 20 per 5 minutes take at least 10 min', () => {
		expect(pacedRunEstimate('payout', 60, createRunSettings('payout', {}, {}))).toBe('Money payout run: 60 payouts at the velocity limit of 20 per 300 s take at least 10 min');
	});

	it('at the credential limit; nothing for a run that fits one window, a charge run, or On Velocity Limit Fail', () => {
		expect(pacedRunEstimate('payout', 12, createRunSettings('payout', {}, { velocityLimit: 5, velocityWindowSeconds: 2 }))).toContain('take at least 4 s');
		expect(pacedRunEstimate('payout', 20, createRunSettings('payout', {}, {}))).toBeUndefined();
		expect(pacedRunEstimate('charge', 500, createRunSettings('charge', {}, {}))).toBeUndefined();
		expect(pacedRunEstimate('payout', 500, createRunSettings('payout', { onVelocityLimit: 'fail' }, {}))).toBeUndefined();
	});

	it('durations read as seconds, minutes, or hours and minutes', () => {
		expect([durationText(45_000), durationText(600_000), durationText(7_500_000)]).toEqual(['45 s', '10 min', '2 h 5 min']);
	});
});
